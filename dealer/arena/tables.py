"""The reports as text tables: a run's (``format_table``), one player's over any logs
(``format_player_table``) and a game of three or more players' (``format_multi_table``)."""

from __future__ import annotations

from acpc_arena.dealer.arena.aivat.reporting import aivat_lines, aivat_row
from acpc_arena.dealer.arena.estimates import Estimate, estimate, signed
from acpc_arena.dealer.arena.player_report import PlayerReport
from acpc_arena.dealer.arena.reports import MatchFigures, MultiReport, Report, verdict


def _note(figure: MatchFigures) -> str:
    """Why a match's row may be short: unfinished (with the error), incomplete lines left out."""
    notes = []
    if figure.error:
        notes.append(f"unfinished: {figure.error}")
    elif figure.match.score is None:
        notes.append("unfinished")
    if figure.match.dropped_lines:
        notes.append(f"{figure.match.dropped_lines} incomplete last line left out")
    return "; ".join(notes)


TABLE_LEGEND = """\
columns:
  A seat          A's seat, from 1; both: the seed's two seatings, dealt the same cards
  hands           hands played; on a duplicate row, pairs of hands (hand i of one seating with hand i of the other)
  chips won by A  A's chips over those hands, both seatings on a "both" row (negative: lost)
  mbb/h A         A's result: chips per hand in thousandths of a big blind
  hands A won     the share of hands in which A won chips, however few: not the result (small pots won
                  can add up to less than a few big ones lost)
  note            on the pooled rows, the estimate and its 95% confidence interval (mean ± 1.96 standard errors)"""


def format_table(report: Report) -> str:
    """One row per seed and seat (like table 4-2 of seed 000), then the duplicate rows, the verdict
    and what the columns mean."""
    rows = [("seed", "A seat", "hands", "chips won by A", "mbb/h A", "hands A won", "note")]
    for figure in sorted(report.matches, key=lambda f: (f.match.seed, f.a_seat)):
        rows.append(
            (
                str(figure.match.seed),
                str(figure.a_seat + 1),
                str(len(figure.match.hands)),
                signed(figure.chips_a, 0),
                signed(figure.mbb_per_hand_a),
                f"{100 * figure.win_rate_a:.1f}%",
                _note(figure),
            )
        )
    for entry in report.per_seed:
        if "duplicate" in entry:
            dup = entry["duplicate"]
            rows.append(
                (
                    str(entry["seed"]),
                    "both",
                    str(entry["hands"]),
                    signed(entry["chips_a"], 0),
                    signed(dup["mbb_per_hand"]),
                    "",
                    f"duplicate, 95% CI [{signed(dup['ci95'][0])}, {signed(dup['ci95'][1])}]",
                )
            )
    main = report.main
    adjusted = report.allin_duplicate if report.duplicate_pairs else report.allin_per_hand
    kind = report.estimate_kind
    rows.append(
        (
            "all",
            "both",
            str(main.samples),
            signed(main.chips_per_hand * main.samples * (2 if report.duplicate_pairs else 1), 0),
            signed(main.mbb_per_hand),
            "",
            f"{kind}, 95% CI [{signed(main.ci95[0])}, {signed(main.ci95[1])}]",
        )
    )
    rows.append(
        (
            "all",
            "both",
            str(adjusted.samples),
            "",
            signed(adjusted.mbb_per_hand),
            "",
            f"all-in adjusted {kind}, 95% CI [{signed(adjusted.ci95[0])}, {signed(adjusted.ci95[1])}]",
        )
    )
    if report.duplicate_pairs:
        ph = report.per_hand
        rows.append(
            ("all", "both", str(ph.samples), "", signed(ph.mbb_per_hand), "",
             f"per hand, 95% CI [{signed(ph.ci95[0])}, {signed(ph.ci95[1])}]")
        )  # fmt: skip
    aivat = aivat_row(report)
    if aivat is not None:
        rows.append(aivat)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"A = {report.a}, B = {report.b}, game {report.game_file}, big blind {report.game.big_blind}"]
    for k, row in enumerate(rows):
        lines.append("  ".join(cell.rjust(widths[i]) if i < 6 else cell for i, cell in enumerate(row)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths[:6]) + "  " + "-" * 4)
    lines += ["", "verdict: " + verdict(main, report.a, report.b, kind), *aivat_lines(report), "", TABLE_LEGEND]
    return "\n".join(lines)


def _ci_note(kind: str, est: Estimate) -> str:
    return f"{kind}, 95% CI [{signed(est.ci95[0])}, {signed(est.ci95[1])}]"


def format_player_table(report: PlayerReport) -> str:
    """One row per log, then per opponent, then in all (duplicate too where logs pair up)."""
    bb = report.game.big_blind
    rows = [("log", "opponent", "seat", "hands", "chips", "mbb/h", "note")]
    for log in report.logs:
        notes = [] if log.finished else ["no SCORE line"]
        if log.problems:
            notes.append(f"{log.problems} problems (bad lines skipped), named on standard error")
        seat = "?" if log.seat is None else str(log.seat + 1)
        chips = float(log.values.sum())
        mbb = estimate(log.values, bb).mbb_per_hand
        rows.append((log.path.name, ", ".join(log.opponents), seat, str(len(log.values)), signed(chips, 0),
                     signed(mbb), "; ".join(notes)))  # fmt: skip
    for name, est in report.by_opponent.items():
        rows.append(("all", name, "all", str(est.samples), "", signed(est.mbb_per_hand), _ci_note("per hand", est)))
    main = report.per_hand
    total = signed(main.chips_per_hand * main.samples, 0)
    rows.append(("all", "all", "all", str(main.samples), total, signed(main.mbb_per_hand), _ci_note("per hand", main)))
    if report.duplicate_pairs:
        dup = report.duplicate
        rows.append(("all", "all", "both", str(dup.samples), "", signed(dup.mbb_per_hand), _ci_note("duplicate", dup)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"player {report.player}, game {report.game_name}, big blind {bb}"]
    for k, row in enumerate(rows):
        cells = [
            cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i]) if i < 6 else cell for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths[:6]) + "  " + "-" * 4)
    return "\n".join(lines)


def format_multi_table(report: MultiReport) -> str:
    """One row per match, then one per player: duplicate mbb/h with its 95% interval, and per hand."""
    rows = [("seed", "seats", "hands", "chips by seat", "note")]
    for match in sorted(report.matches, key=lambda m: (m.seed, str(m.path))):
        chips = " ".join(signed(float(match.values_of(name).sum()), 0).rjust(7) for name in match.seat_names)
        error = report.errors.get(match.path)
        note = f"unfinished: {error}" if error else "" if match.score is not None else "unfinished"
        rows.append((str(match.seed), " ".join(match.seat_names), str(len(match.hands)), chips, note))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [f"players {', '.join(report.players)}, game {report.game_file}, big blind {report.game.big_blind}"]
    for k, row in enumerate(rows):
        lines.append("  ".join(cell.rjust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 4)
    lines.append("")
    name_width = max(len(name) for name in report.players)
    kind = "duplicate" if report.duplicate_samples else "per hand"
    for name in report.players:
        main, plain = report.main(name), report.per_hand[name]
        lines.append(
            f"{name.ljust(name_width)}  {signed(main.mbb_per_hand):>8} mbb/h  {_ci_note(kind, main)} over "
            f"{main.samples} hands; per hand {signed(plain.mbb_per_hand)}"
        )
    return "\n".join(lines)
