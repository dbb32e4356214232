"""The agents the results pages play: the suites of opponents and the rows that recur (``results_pages``)."""

from __future__ import annotations

from results_sections import NOLIMIT, NOLIMIT_SEEDS, Matches, Side


def sides(*names: str) -> tuple[Side, ...]:
    return tuple(Side(n, n) for n in names)


LIMIT_SUITE = sides("spar_equity", "spar_tag", "spar_lag", "spar_station", "spar_rock", "spar_bluffer", "equity")
"""The limit sparring suite and ``equity``."""
LIMIT_CFR = (Side("cfr", "cfr"), Side("cfr --sample", "cfr", "--sample"))
"""The limit default CFR (purified) and the same strategy sampled."""
CFR_EHS2 = Side("cfr-ehs2", "cfr", "--checkpoint cfr-ehs2")
LIMIT_LBR_AGENTS = (
    Side("cfr-improved", "cfr", "--checkpoint cfr-improved"),
    Side("cfr-traditional", "cfr", "--checkpoint cfr-traditional"),
    *sides("poker_cnn", "nfq", "dqn", "lstm_dqn", "rule", "equity", "call", "raise", "random"),
)
SLOW_FOR_LBR = frozenset({"rule", "equity"})
"""Agents whose policy over a range costs most (Monte Carlo equities): LBR plays them 2/5 of the deals."""


def lbr_rows(sides: tuple[Side, ...], deals: int) -> tuple[tuple[Side, int], ...]:
    return tuple((side, deals * 2 // 5 if side.agent in SLOW_FOR_LBR else deals) for side in sides)


STYLES = sides("o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o_random")
NOLIMIT_SUITE = sides(
    "spar_shove10",
    "spar_shove30",
    "spar_shove60",
    "spar_overbet",
    "spar_minraise",
    "spar_limper",
    "spar_fractions",
    "spar_oddsize",
)


NOLIMIT_TABLE_3 = Matches(
    "table-3",
    "Seed 001, table 3: the ensemble's parts against the styles and the suite",
    "A_tar is the counter network evolved against the column's style; A_base the network evolved "
    "against all eight; A_ave the counters' plain average; A_int their similarity-weighted mixture; "
    "A* (the default) A_int where the opponent model has seen the betting line, A_base elsewhere; "
    "`clone` the network evolution started from (the `cfr-nl` teacher cloned), so A_base and A* "
    "against it is what evolution adds. Every row plays with the all-in guard except the last, "
    "A* as seed 001 has it.",
    (
        Side("A_tar", "ensemble", "--mode a_tar --style {column}"),
        Side("A_base", "ensemble", "--mode a_base"),
        Side("A_ave", "ensemble", "--mode a_ave"),
        Side("A_int", "ensemble", "--mode a_int"),
        Side("A*", "ensemble"),
        Side("clone", "ensemble", "--mode clone"),
        Side("A*, no guard", "ensemble", "--allin-guard off"),
    ),
    (*STYLES, *NOLIMIT_SUITE),
    game=NOLIMIT,
    seeds=NOLIMIT_SEEDS,
    allin=True,
    skip=frozenset({("A_tar", side.label) for side in (STYLES[-1], *NOLIMIT_SUITE)}),
)
