"""The results pages: each one's sections and the runs they name (``regenerate.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from results_agents import (
    CFR_EHS2,
    LIMIT_CFR,
    LIMIT_LBR_AGENTS,
    LIMIT_SUITE,
    NOLIMIT_SUITE,
    NOLIMIT_TABLE_3,
    STYLES,
    lbr_rows,
    sides,
)
from results_bench import BENCH_PAGE
from results_render import interval, table_header, table_row
from results_sections import (
    BIN,
    LIMIT,
    NOLIMIT,
    NOLIMIT_SEEDS,
    SPARRING_SEEDS,
    Commands,
    Differences,
    Lbr,
    Matches,
    Page,
    RoundRobin,
    Side,
    Sidecars,
)
from results_suite_pages import SUITE_PAGES
from results_training import cfr_checkpoints, ensemble_evolution, network_trainings, poker_cnn_curve, poker_cnn_folds

# --- the pages -----------------------------------------------------------------------------


AIVAT_SEEDS = (9201, 9202, 9203)
"""The deal seeds of the AIVAT tables (no table, no agent's selection or tuning used them)."""


def _aivat_match(a: str, b: str, game: str, *more: str) -> tuple[str, ...]:
    """An in-process duplicate run of 2,000 hands a seat on ``AIVAT_SEEDS`` with AIVAT's estimate."""
    seeds = ",".join(map(str, AIVAT_SEEDS))
    return ("acpc-match", "--a", a, "--b", b, *more, "--game", game, "--seeds", seeds, "--hands", "2000",
            "--in-process", "--concurrency", "1", "--aivat", "--quiet", "--no-plots", "--out", "{out}")  # fmt: skip


AIVAT_RUNS = (
    ("limit-cfr-vs-equity", _aivat_match("cfr", "equity", LIMIT)),
    ("nolimit-cfr-vs-o_random", _aivat_match("cfr", "o_random", NOLIMIT)),
    (
        "limit-cfr-vs-example_player",
        _aivat_match(
            "cfr",
            "example_player",
            LIMIT,
            "--b-cmd",
            f"{BIN / 'acpc-agent'} random {{host}} {{port}} --game {{game}} --seed {{seed}}",
        ),
    ),
)

AIVAT_LABELS = {
    "limit-cfr-vs-equity": "limit: `cfr` against `equity`, both known",
    "nolimit-cfr-vs-o_random": "no-limit: `cfr` against `o_random`, both known",
    "limit-cfr-vs-example_player": "limit: `cfr` against the example player, `cfr` known",
}


def aivat_table(folders: dict[str, Path]) -> list[str]:
    """AIVAT beside the duplicate estimate for each run: estimates, half-width ratio, seconds."""
    lines = table_header(
        ["run", "duplicate mbb/h [95% CI]", "AIVAT mbb/h [95% CI]", "half-width ratio", "AIVAT s / match s"]
    )
    for name, folder in folders.items():
        report = json.loads((folder / "report.json").read_text())
        aivat, name = report["aivat"], AIVAT_LABELS[name]
        duplicate = report["duplicate"]
        if "unavailable" in aivat:
            lines.append(table_row([name, interval(duplicate), f"unavailable: {aivat['unavailable']}", "", ""]))
            continue
        ratio = (aivat["ci95"][1] - aivat["ci95"][0]) / (duplicate["ci95"][1] - duplicate["ci95"][0])
        match_seconds = report["elapsed_seconds"]
        lines.append(
            table_row(
                [
                    name,
                    interval(duplicate),
                    interval({"mbb_per_hand": aivat["mbb_per_hand"], "ci95": aivat["ci95"]}),
                    f"{ratio:.2f}",
                    f"{aivat['seconds']:,.0f} / {match_seconds:,.0f} ({aivat['seconds'] / match_seconds:.1f}x)",
                ]
            )
        )
    first = json.loads((next(iter(folders.values())) / "report.json").read_text())["aivat"]
    lines += [
        "",
        f"AIVAT's corrections in the first run: {first.get('corrections', '')}. The match's seconds are the run's "
        "own (`elapsed_seconds`: one match at a time in this process, the scoring included); AIVAT's are its "
        "`seconds` in `report.json`, after the match. Both are wall seconds on the machine named above, shared "
        "with other work, so their ratio moves with its load; `python -m benchmarks aivat` measures it in "
        "interleaved runs.",
    ]
    return lines


PAGES: tuple[Page, ...] = (
    Page(
        "limit-round-robin",
        "Limit hold'em: every shipped agent against every other",
        "Heads-up limit hold'em (`holdem.limit.2p.reverse_blinds`), the default checkpoint of every agent that "
        "plays it, on the tables' deal seeds 1, 234 and 6666.",
        (
            RoundRobin(
                "round-robin",
                "Round robin",
                "Every pair in duplicate, 2,000 hands a seat and seed (6,000 hand pairs a cell).",
                sides(
                    "random",
                    "call",
                    "raise",
                    "rule",
                    "equity",
                    "cfr",
                    "cfr_exploit",
                    "lstm_dqn",
                    "dqn",
                    "nfq",
                    "poker_cnn",
                ),
            ),
        ),
    ),
    Page(
        "limit-checkpoints",
        "Limit hold'em: the seed systems' tables and their checkpoints",
        "The tables of the seed systems on heads-up limit hold'em, redone in duplicate through the dealer on "
        "the tables' deal seeds 1, 234 and 6666. `cfr` is the default checkpoint unless the row names another.",
        (
            Matches(
                "seed-002",
                "Seed 002: CFR's card abstractions against the baselines",
                "The seed's traditional and improved nine-bucket abstractions, the improved one played by its "
                "most likely action, the E[HS²] abstraction of 50 buckets a round, and the default exact E[HS²] one.",
                (
                    Side("traditional 9 buckets", "cfr", "--checkpoint cfr-traditional"),
                    Side("improved 9 buckets", "cfr", "--checkpoint cfr-improved"),
                    Side("improved, argmax", "cfr", "--checkpoint cfr-improved --argmax"),
                    Side("cfr-ehs2", "cfr", "--checkpoint cfr-ehs2"),
                    Side("cfr-ehs2-exact (default)", "cfr"),
                ),
                sides("call", "raise", "random", "rule", "equity"),
            ),
            Matches(
                "table-4-2",
                "Seed 000, table 4-2: LSTM-DQN against DQN",
                "The shipped pair head to head, 3,000 hands a seat and seed.",
                sides("lstm_dqn"),
                sides("dqn"),
                hands=3000,
                by_seed=True,
            ),
            Matches(
                "networks",
                "The networks against the baselines and CFR",
                "Each learned agent's default checkpoint; `cfr-improved` is seed 002's improved nine buckets.",
                sides("lstm_dqn", "dqn", "nfq", "poker_cnn"),
                (
                    *sides("equity", "rule", "cfr"),
                    Side("cfr-improved", "cfr", "--checkpoint cfr-improved"),
                    *sides("random", "call", "raise"),
                ),
            ),
            Matches(
                "nfq-ablations",
                "Seed 003: NFQ and its ablations",
                "`nfq-seed` (seed 003's configuration: a window of 3 observations, lambda 0.7, the UCT reward "
                "mixed in with beta 0.5) and the same training with one part removed: no UCT reward (`nfq-chips`), "
                "no eligibility traces (`nfq-lambda0`), one observation (`nfq-n1`).",
                (
                    Side("nfq-seed", "nfq", "--checkpoint nfq-seed"),
                    Side("nfq-chips", "nfq", "--checkpoint nfq-chips"),
                    Side("nfq-lambda0", "nfq", "--checkpoint nfq-lambda0"),
                    Side("nfq-n1", "nfq", "--checkpoint nfq-n1"),
                ),
                (
                    *sides("random", "call", "raise", "rule", "dqn", "lstm_dqn", "cfr"),
                    Side("nfq-seed (shipped)", "nfq", "--checkpoint nfq-seed"),
                ),
                skip=frozenset({("nfq-seed", "nfq-seed (shipped)")}),
            ),
            Matches(
                "poker-cnn-teacher",
                "Seed 004: Poker-CNN against its teacher",
                "The imitation network against the CFR strategy whose decisions it was trained on, played by "
                "its most likely action as when it made the training data.",
                sides("poker_cnn"),
                (
                    Side(
                        "teacher (cfr-ehs2, argmax)",
                        "cfr",
                        "--checkpoint cfr-ehs2 --argmax",
                    ),
                ),
            ),
        ),
    ),
    Page(
        "limit-sparring",
        "Limit hold'em: the default CFR and every limit agent against the sparring suite",
        "Heads-up limit hold'em against the limit sparring suite (`agents/sparring/`, heuristic bots nobody "
        "tuned an agent on) and `equity`, in duplicate on deal seeds 9101, 9102 and 9103, which no table and "
        "no choice of a checkpoint used: the default CFR 3,000 hands a seat, every limit agent 1,000.",
        (
            Matches(
                "cfr",
                "The default CFR",
                "`cfr` is `cfr-ehs2-exact` (public chance sampling, exact E[HS²] buckets), played by its most likely "
                "action (purified).",
                (Side("cfr (default)", "cfr"),),
                LIMIT_SUITE,
                seeds=SPARRING_SEEDS,
                hands=3000,
            ),
            Matches(
                "every-agent",
                "Every limit agent against the suite",
                "Each shipped limit agent (its default checkpoint; `cfr --sample`, the default CFR sampling its "
                "average strategy instead of playing its most likely action; and `cfr-ehs2`, the previous "
                "default checkpoint) against the same bots, "
                "1,000 hands a seat on the same deal seeds (the default CFR's row is the first 1,000 hands of "
                "its table above).",
                (
                    Side("cfr (default)", "cfr"),
                    Side("cfr --sample", "cfr", "--sample"),
                    CFR_EHS2,
                    *sides("dqn", "lstm_dqn", "poker_cnn", "nfq", "equity", "rule"),
                ),
                LIMIT_SUITE,
                seeds=SPARRING_SEEDS,
                hands=1000,
                skip=frozenset({("equity", "equity")}),
            ),
        ),
    ),
    *SUITE_PAGES,
    Page(
        "nolimit-agents",
        "No-limit hold'em: CFR, the ensemble, the styles and the sparring suite",
        "Heads-up no-limit hold'em (`holdem.nolimit.2p.reverse_blinds`: stacks of 200 big blinds), 2,000 hands "
        "a seat and seed. The agents' tables are played on deal seeds 7301, 7302 and 7303, which no table and no "
        "choice of a setting used, against seed 001's styles, the baselines and the no-limit sparring suite "
        "(`agents/sparring/nolimit.py`: shovers of their top 10%, 30% and 60%, an overbettor, a min-raiser, a "
        "limp-caller, a pot-fraction equity bot and an odd-size bot, none tuned against an agent here). "
        "No-limit results swing with all-ins; the all-in-adjusted figure values each hand that ended all in "
        "before the river at its expectation over the boards still to come.",
        (
            Matches(
                "cfr-nl",
                "`cfr` (the `cfr-nl` checkpoint) against the styles, the baselines and the suite",
                "The abstract no-limit strategy (pot-fraction bets, all-in, E[HS²] buckets) with the all-in guard.",
                (Side("cfr", "cfr"),),
                (
                    *STYLES,
                    *sides("call", "raise", "random", "rule", "equity"),
                    *NOLIMIT_SUITE,
                ),
                game=NOLIMIT,
                seeds=NOLIMIT_SEEDS,
                allin=True,
            ),
            NOLIMIT_TABLE_3,
            Differences(
                "table-3-parts",
                "What each part of the ensemble adds",
                "The rows of table 3 compared on the same deals: what evolution adds (A_base and A* against the "
                "clone it started from), what the opponent model's integration adds over the base network (A* "
                "against A_base), what the similarity weighting adds over the plain average of the counters "
                "(A_int and A* against A_ave), and what the all-in guard changes (A* against A* without it).",
                NOLIMIT_TABLE_3,
                (
                    ("A_base", "clone"),
                    ("A*", "clone"),
                    ("A*", "A_base"),
                    ("A_int", "A_ave"),
                    ("A*", "A_ave"),
                    ("A*", "A*, no guard"),
                ),
            ),
            Matches(
                "table-4",
                "Seed 001, table 4: the ensemble against the other agents",
                "A* against the baselines and the other shipped agents (the Q-networks play no-limit with "
                "pot-sized raises; they were trained on limit hold'em), beside the counters' plain average A_ave "
                "and the clone evolution started from. The same three rows against the sparring suite are in "
                "table 3, on the same deals.",
                (
                    Side("A*", "ensemble"),
                    Side("A_ave", "ensemble", "--mode a_ave"),
                    Side("clone", "ensemble", "--mode clone"),
                ),
                sides(
                    "random",
                    "call",
                    "raise",
                    "rule",
                    "equity",
                    "cfr",
                    "lstm_dqn",
                    "dqn",
                ),
                game=NOLIMIT,
                seeds=NOLIMIT_SEEDS,
                allin=True,
            ),
            RoundRobin(
                "styles",
                "Seed 001's styles against each other",
                "The eight styles, O_random and two baselines, 1,000 hands a seat on the tables' deal seeds 1, 234 "
                "and 6666.",
                (*STYLES, *sides("raise", "random")),
                game=NOLIMIT,
                hands=1000,
            ),
        ),
    ),
    Page(
        "lbr",
        "Local best response against every agent",
        "LBR (`acpc-lbr`) plays each deal in both positions against the agent, choosing each of its actions "
        "by the best immediate response to the agent's range (from the agent's own policy), assuming the "
        "agent then checks or calls to the end. Its winnings are a lower bound on the agent's exploitability: "
        "a high figure shows a weakness; a figure near or below zero says LBR found none, not that there is "
        "none. In limit hold'em, LBR's first table only checks or calls before the flop (as in Lisý and "
        "Bowling's limit runs); the second lets it bet and raise there too.",
        (
            Lbr(
                "limit",
                "Limit hold'em",
                "Deal seed 1; LBR checks or calls before the flop.",
                lbr_rows((*LIMIT_CFR, *LIMIT_LBR_AGENTS), 250),
            ),
            Lbr(
                "limit-preflop",
                "Limit hold'em, LBR betting before the flop",
                "Deal seed 1; before the flop LBR chooses among fold, call and raise as on the later rounds, "
                "by its equity against the agent's range (`--first-round lbr`). `cfr-ehs2` is the previous "
                "default checkpoint.",
                (*lbr_rows(LIMIT_CFR, 2000), *lbr_rows((CFR_EHS2, *LIMIT_LBR_AGENTS), 500)),
                lbr_args="--first-round lbr",
            ),
            Lbr(
                "nolimit",
                "No-limit hold'em",
                "Deal seed 1; LBR bets half the pot, the pot or all in.",
                (
                    (Side("cfr", "cfr"), 250),
                    (Side("ensemble", "ensemble"), 250),
                    (
                        Side(
                            "ensemble, no all-in guard (seed 001's A*)",
                            "ensemble",
                            "--allin-guard off",
                        ),
                        250,
                    ),
                    *((s, 250) for s in STYLES[:-1]),
                    (Side("equity", "equity"), 100),
                    (Side("rule", "rule"), 100),
                    (Side("call", "call"), 250),
                    (Side("raise", "raise"), 250),
                    (Side("random", "random"), 250),
                ),
                game=NOLIMIT,
            ),
        ),
    ),
    Page(
        "training",
        "What the shipped checkpoints' training runs recorded",
        "Read from the JSON sidecar written beside each checkpoint in `models/checkpoints/` by the training "
        "command that made it (`make train AGENT=...`; the sidecar records the options, the commit and the "
        "figures the run measured).",
        (
            Sidecars(
                "cfr",
                "CFR",
                "`acpc-cfr solve` runs (`make train AGENT=cfr`, `AGENT=cfr-nl`).",
                cfr_checkpoints,
            ),
            Sidecars(
                "poker-cnn-curve",
                "Poker-CNN: accuracy against data size",
                "`make data`, then `make train AGENT=poker_cnn` (the default checkpoint, `poker_cnn`).",
                poker_cnn_curve,
            ),
            Sidecars(
                "poker-cnn",
                "Poker-CNN's cross-validation (the seed's configuration)",
                "`python -m acpc_arena.models.training.poker_cnn_data`, then `make train AGENT=poker_cnn "
                "TRAIN_ARGS='--preset faithful'` (`poker_cnn-seed`).",
                poker_cnn_folds,
            ),
            Sidecars(
                "networks",
                "The Q-networks and NFQ",
                "`make train AGENT=lstm_dqn|dqn|nfq`.",
                network_trainings,
            ),
            Sidecars(
                "ensemble",
                "The ensemble's evolution",
                "`make train AGENT=ensemble`.",
                ensemble_evolution,
            ),
        ),
    ),
    Page(
        "aivat",
        "AIVAT beside the duplicate estimate in hold'em",
        "[AIVAT](../guides/aivat.md) uses the shipped agents' policies to take the luck of the cards and of "
        "the agents' own random choices out of a match's result, and stays unbiased. Each row is one duplicate "
        "run of 2,000 hands a seat on each of the seeds "
        + ", ".join(map(str, AIVAT_SEEDS))
        + ", played in this process with `--aivat`. The ACPC example player is the project's port of it "
        "(`acpc-agent random`, which draws from MT19937 as the C `example_player` does: the project has no C "
        "sources to build it from), started as an outside command (`--b-cmd`), so its policy is not known.",
        (
            Commands(
                "tables",
                "AIVAT's interval beside the duplicate one",
                "The duplicate estimate and AIVAT's with their 95% intervals (mbb/h for the first agent), the "
                "ratio of their half-widths (the issue's goal: at most 0.5), and AIVAT's seconds beside the "
                "match's.",
                AIVAT_RUNS,
                aivat_table,
            ),
        ),
    ),
    BENCH_PAGE,
)
