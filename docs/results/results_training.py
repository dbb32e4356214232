"""What the training page shows of each training run's files: the CFR checkpoints' sidecars, Poker-CNN's
accuracy curve and folds, the Q-networks' trainings and the ensemble's evolution (``results_pages``'
``Sidecars`` sections)."""

from __future__ import annotations

import json
from pathlib import Path

from results_render import copy_image, table_header, table_row


def cfr_checkpoints(folder: Path) -> list[str]:
    """The CFR checkpoints' training records."""
    lines = table_header(
        [
            "checkpoint",
            "game",
            "abstraction",
            "algorithm",
            "iterations",
            "sampled an iteration",
            "information sets",
            "seconds",
            "exploitability (exact, chips/hand)",
        ],
        numeric_from=4,
    )
    for path in sorted(folder.glob("cfr-*.json")):
        d = json.loads(path.read_text())
        exploitability = f"{d['exploitability']:.2e}" if d.get("exploitability") is not None else "-"
        lines.append(
            table_row(
                [
                    f"`{path.stem}`",
                    d["game_name"],
                    d["abstraction"],
                    d["algorithm"],
                    f"{d['iterations']:,}",
                    f"{d['deals_per_iteration']:,} deals" if "deals_per_iteration" in d else "1 board, every hand",
                    f"{d['infosets']:,}",
                    f"{d['seconds']:,.0f}",
                    exploitability,
                ]
            )
        )
    lines += [
        "",
        "Kuhn and Leduc are solved over every deal, so their exploitability is exact; hold'em's is not "
        "computable exactly (see the LBR page for a lower bound).",
    ]
    return lines


ROUNDS = ["all", "preflop", "flop", "turn", "river"]


def poker_cnn_curve(folder: Path) -> list[str]:
    """The default Poker-CNN's held-out accuracy against its teacher's argmax, by training records seen."""
    d = json.loads((folder / "poker_cnn.json").read_text())
    data, training, config = d["data"], d["training"], d["config"]
    seed = json.loads((folder / "poker_cnn-seed.json").read_text())["training"]
    majority = training["held_out_majority"]
    shipped = seed["folds"][seed["shipped_fold"] - 1]["held_out_accuracy"]["all"]
    lines = [
        f"Teacher `{data['teacher'][0]} {data['teacher'][1]}` (the default limit CFR, argmax) against "
        + ", ".join(f"`{' '.join(p).strip()}`" for p in data["pairings"])
        + f"; {data['records']:,} decisions of {data['shards'] * data['hands']:,} hands, "
        f"{training['held_out_records']:,} of them (whole hands) held out. Encoding `{d['encoding']}` "
        f"({d['planes']} planes), {config['epochs']} epochs, batch {config['batch_size']}, seed {config['seed']}; "
        f"recording the decisions took {data['seconds']:,.0f} s and training {training['seconds']:,.0f} s on one "
        "core. Held-out accuracy (the network's most likely action is the teacher's) after training on the first "
        "N records once (the first epoch), then after the last epoch over all of them, the shipped "
        "network's:",
        "",
    ]
    lines += table_header(["records seen", "epochs", *ROUNDS], numeric_from=0)
    for point in training["curve"]:
        cells = [f"{point['accuracy'][r]:.1%}" for r in ROUNDS]
        lines.append(table_row([f"{point['records']:,}", f"{point['epochs']:g}", *cells]))
    lines += [
        "",
        "Always predicting the most common action of each round: "
        + ", ".join(f"{r} {majority[r]:.1%}" for r in ROUNDS)
        + f". The seed's configuration (`poker_cnn-seed`, 16 planes, below): {shipped:.1%} held-out accuracy for "
        f"its shipped fold, {seed['mean_held_out_accuracy']:.1%} the mean over its folds.",
    ]
    return lines


def poker_cnn_folds(folder: Path) -> list[str]:
    """Poker-CNN's cross-validation: accuracy per fold and round, beside always predicting the commonest action."""
    d = json.loads((folder / "poker_cnn-seed.json").read_text())
    rounds = ROUNDS
    lines = [
        f"Training: `acpc-train poker_cnn --preset faithful` with {d['config']['records']:,} records "
        f"({d['config']['test_records']:,} "
        f"of them the test set), {d['config']['folds']} folds, {d['config']['epochs']} epochs, seed "
        f"{d['config']['seed']}; teacher `{d['data']['teacher']} {d['data']['teacher_args']}`. Accuracy on each "
        "fold's held-out records, in brackets always predicting the most common action of that round:",
        "",
    ]
    lines += table_header(["fold", "held out", *rounds, "test set, all"])
    for fold in d["training"]["folds"]:
        acc, base = fold["held_out_accuracy"], fold["held_out_majority"]
        cells = [f"{acc[r]:.1%} ({base[r]:.1%})" for r in rounds]
        lines.append(
            table_row(
                [
                    str(fold["fold"]),
                    f"{fold['held_out_records']:,}",
                    *cells,
                    f"{fold['test_accuracy']['all']:.1%} ({fold['test_majority']['all']:.1%})",
                ]
            )
        )
    return lines


def network_trainings(folder: Path) -> list[str]:
    """The Q-networks' and NFQ's training records."""
    lines = table_header(
        ["checkpoint", "pool", "hands trained", "steps on demonstrations", "seconds", "created"],
        numeric_from=2,
    )
    for path in sorted(
        [
            *folder.glob("dqn*.json"),
            *folder.glob("lstm_dqn*.json"),
            *folder.glob("nfq*.json"),
        ]
    ):
        d = json.loads(path.read_text())
        pool = d.get("config", {}).get("pool") or "v1 (" + ", ".join(d.get("opponents") or []) + ")"
        if not d["stats"]["hands"]:
            pool = "none: demonstrations alone"
        lines.append(
            table_row(
                [
                    f"`{path.stem}`",
                    pool,
                    f"{d['stats']['hands']:,}",
                    f"{d['pretraining'][-1]['steps']:,}" if d.get("pretraining") else "",
                    f"{d['stats'].get('seconds_all', d['stats']['seconds']):,.0f}",
                    d["created"][:10],
                ]
            )
        )
    return lines


def ensemble_evolution(folder: Path) -> list[str]:
    d = json.loads((folder / "ensemble-networks.json").read_text())
    return [
        f"`acpc-train ensemble`: {d['hands']:,} hands of evolution in {d['wall_seconds']:,.0f} s of wall time "
        f"({d['workers']} workers, {d['hands_per_second']:,.0f} hands/s of play). Fitness of the best individual "
        "per generation, each network's evolution:",
        "",
        f"![fitness]({copy_image(folder / 'ensemble-fitness.png', 'training', 'ensemble')})",
    ]
