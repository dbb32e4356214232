"""Local best response (LBR): a lower bound on a heads-up agent's exploitability (``acpc-lbr``).

- ``response``: LBR's decision at one state (its range of the agent's holdings, the
  value of each candidate action) and the settings it plays by
- ``equity``: its showdown equity ``wp`` against the range, by exhaustive or sampled
  board completions
- ``evaluation``: LBR against an agent over seeded duplicate deals, in mbb per hand
- ``exact``: LBR's and the best response's exact values in small limit games
"""
