"""A hold'em hand's strength as a percentile of the hands it could face.

- ``preflop``: the 169 starting-hand classes ranked by equity against a random hand
- ``classes``: the 169 classes as indices 0 .. 168 (a table's rows)
- ``postflop``: after the flop, the share of the opponent's holdings a hand beats

The styles, the sparring bots, the ensemble's features and the arena's fold rates read them.
"""
