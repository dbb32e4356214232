"""Local best response (LBR): a lower bound on a heads-up agent's exploitability (``acpc-lbr``)."""
