"""The results pages of agents against the limit sparring suite on deal seeds no selection used: the
exploiter, the limit agents' defaults and seed configurations, NFQ's default, seed 000's default networks and its
Q-networks learned from demonstrations (``results_pages``)."""

from __future__ import annotations

from results_agents import LIMIT_SUITE, sides
from results_sections import DEFAULTS_SEEDS, EXPLOIT_SEEDS, Lbr, Matches, Page, Side

SUITE_PAGES = (
    Page(
        "limit-exploit",
        "Limit hold'em: cfr_exploit, the default CFR tilted against what it sees",
        "`cfr_exploit` plays the default CFR and tilts it against the opponent's rates within a safety budget "
        "(seed 002's page says how). Here against the limit sparring suite, `equity` and `cfr` itself, in "
        "duplicate on deal seeds 9801, 9802 and 9803, which no table and no choice of its settings used, 2,000 hands "
        "a seat, with AIVAT's figure beside the plain one: every opponent here is a shipped agent, so both "
        "policies are known and AIVAT takes out most of the luck of the cards and of both players' random "
        "choices, unbiased; and local best response against it, betting before the flop as on the LBR page.",
        (
            Matches(
                "suite",
                "Against the suite, equity and cfr",
                "The equilibrium it tilts, `cfr`, against the same opponents: the limit sparring page (other deal "
                "seeds).",
                (Side("cfr_exploit", "cfr_exploit"),),
                (*LIMIT_SUITE, Side("cfr", "cfr")),
                seeds=EXPLOIT_SEEDS,
                hands=2000,
                aivat=True,
            ),
            Lbr(
                "lbr",
                "Local best response, betting before the flop",
                "Deal seed 1, LBR choosing among fold, call and raise before the flop (`--first-round lbr`), as "
                "the LBR page's second table, whose `cfr` row is the equilibrium's figure on the same deals.",
                ((Side("cfr_exploit", "cfr_exploit"), 2000),),
                lbr_args="--first-round lbr",
            ),
        ),
    ),
    Page(
        "limit-defaults",
        "Limit hold'em: the limit agents' defaults and the seeds' configurations against the suite",
        "The default `cfr`, `cfr_exploit` and `poker_cnn`, and the checkpoint that keeps each seed's own "
        "configuration, against the limit sparring suite and `equity`, in duplicate on deal seeds 9501, 9502 and "
        "9503, which no table, no choice of a checkpoint and no tuning used: the defaults 2,000 hands a seat, the "
        "seed configurations 1,000. The agents' pages say how each checkpoint was made; the defaults of seed "
        "000's and seed 003's networks have a page of their own.",
        (
            Matches(
                "defaults",
                "The defaults",
                "Each row an agent as `acpc-match` plays it when no option is given.",
                sides("cfr", "cfr_exploit", "poker_cnn"),
                LIMIT_SUITE,
                seeds=DEFAULTS_SEEDS,
                hands=2000,
            ),
            Matches(
                "seed-configurations",
                "The seeds' configurations",
                "Each row the shipped checkpoint that keeps its seed's configuration: seed 002's improved "
                "abstraction, seed 000's thesis configuration of each network, seed 004's network and data.",
                (
                    Side("cfr-improved", "cfr", "--checkpoint cfr-improved"),
                    Side("lstm_dqn-v1", "lstm_dqn", "--checkpoint lstm_dqn-v1"),
                    Side("dqn-v1", "dqn", "--checkpoint dqn-v1"),
                    Side("poker_cnn-seed", "poker_cnn", "--checkpoint poker_cnn-seed"),
                ),
                LIMIT_SUITE,
                seeds=DEFAULTS_SEEDS,
                hands=1000,
            ),
        ),
    ),
    Page(
        "limit-nfq",
        "Limit hold'em: NFQ's default and its seed configuration against the suite",
        "The default `nfq` (seed 003's network learned from the default CFR's demonstrations) and `nfq-seed` "
        "(seed 003's configuration) against the limit sparring suite and `equity`, in duplicate on deal seeds "
        "9501, 9502 and 9503, which no table, no choice of a checkpoint and no tuning used, 2,000 hands a seat.",
        (
            Matches(
                "nfq",
                "NFQ against the suite",
                "Each row the agent with one checkpoint (seed 003's page describes both).",
                (Side("nfq (default)", "nfq"), Side("nfq-seed", "nfq", "--checkpoint nfq-seed")),
                LIMIT_SUITE,
                seeds=DEFAULTS_SEEDS,
                hands=2000,
            ),
        ),
    ),
    Page(
        "limit-seed-000",
        "Limit hold'em: seed 000's default networks against the suite",
        "The default `lstm_dqn` and `dqn`, seed 000's networks as average-policy networks learned from the "
        "default CFR's demonstrations (seed 000's page says how), against the limit sparring suite and `equity`, in "
        "duplicate on deal seeds 9501, 9502 and 9503, which no table, no choice of a checkpoint and no tuning used, "
        "2,000 hands a seat. The seed's own configuration of each network is on the limit defaults page.",
        (
            Matches(
                "defaults",
                "The default networks against the suite",
                "Each row an agent as `acpc-match` plays it when no option is given; its checkpoint's sidecar gives "
                "the share of held-out demonstrations where it picks the demonstrator's action.",
                sides("lstm_dqn", "dqn"),
                LIMIT_SUITE,
                seeds=DEFAULTS_SEEDS,
                hands=2000,
            ),
        ),
    ),
    Page(
        "limit-dqfd",
        "Limit hold'em: seed 000's networks learned from demonstrations against the suite",
        "`lstm_dqn-dqfd` and `dqn-dqfd`, seed 000's networks trained by Deep Q-learning from the default CFR's "
        "demonstrations (seed 000's page says how), against the limit sparring suite and `equity`, in duplicate on "
        "deal seeds 9501, 9502 and 9503, which no table, no choice of a checkpoint and no tuning used, 2,000 hands "
        "a seat.",
        (
            Matches(
                "dqfd",
                "The DQfD networks against the suite",
                "Each row the agent with one checkpoint; its sidecar gives the share of held-out demonstrations "
                "where it picks the demonstrator's action.",
                (
                    Side("lstm_dqn-dqfd", "lstm_dqn", "--checkpoint lstm_dqn-dqfd"),
                    Side("dqn-dqfd", "dqn", "--checkpoint dqn-dqfd"),
                ),
                LIMIT_SUITE,
                seeds=DEFAULTS_SEEDS,
                hands=2000,
            ),
        ),
    ),
)
