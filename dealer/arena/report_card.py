"""A bot's report card (``acpc-eval``): its figures against each reference, its average against the field,
its LBR lower bound, and where it wins and loses, as ``report.json``, a Markdown page and a one-screen
summary; and cards ranked as the results pages rank a round robin's entrants (``rank``).

The verdict against a reference takes AIVAT's estimate where there is one (its interval is the
narrower), else the duplicate one: the bot *beats* the reference when the 95% interval lies above 0,
*loses* when it lies below, else the match is *undecided*. The average against the field is the
round robin's (``tournament.Crosstable.average``): the mean of the duplicate figures, its half-width the
root of the sum of the squared half-widths over the number of references; cards rank by it, best first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acpc_arena.dealer.arena.card_scoring import ENDINGS, PairFigures
from acpc_arena.dealer.arena.estimates import signed
from acpc_arena.dealer.arena.tournament import Cell, Crosstable

_BOT = " bot"
"""The bot's row in ``field_average``'s table (no reference's name has a space)."""
NOTES = {"lbr": "no LBR", "aivat": "AIVAT"}
"""How the summary introduces each note."""
PLOTS = ("card-winrates.png", "card-aivat.png")
"""The card's plots: win rate by reference with intervals; cumulative AIVAT-corrected winnings."""


def verdict(estimate: dict[str, Any]) -> str:
    """``beats``, ``loses`` or ``undecided``, from an estimate's 95% interval."""
    low, high = estimate["ci95"]
    return "beats" if low > 0 else "loses" if high < 0 else "undecided"


def field_average(pairs: list[PairFigures]) -> dict[str, Any] | None:
    """The duplicate average against the references (``Crosstable.average``, the bot's row)."""
    cells = {}
    for pair in pairs:
        duplicate = pair.figures["duplicate"]
        low, high = duplicate["ci95"]
        cells[(_BOT, pair.reference)] = Cell(duplicate["mbb_per_hand"], (low, high), duplicate["samples"])
    names = (_BOT, *(pair.reference for pair in pairs))
    average = Crosstable(names, cells, "", (), 0).average(_BOT)
    if average is None:
        return None
    return {"mbb_per_hand": average.mbb_per_hand, "ci95": list(average.ci95), "references": len(pairs)}


@dataclass
class ReportCard:
    """A card's figures (``to_json`` is ``report.json``)."""

    bot: str
    spec: str
    """The agent spec, or the command line of a TCP bot."""
    game: str
    preset: str
    seeds: tuple[int, ...]
    hands: int
    pairs: list[PairFigures]
    references: tuple[str, ...]
    """Every reference of the card, those that played no hand too."""
    lbr: dict[str, Any] | None
    """``acpc-lbr``'s figures (``Result.as_dict``), or None."""
    notes: dict[str, str]
    """Why something is missing: ``lbr``, ``aivat``."""
    big_blind: int

    def to_json(self) -> dict[str, Any]:
        rows = {pair.reference: {**pair.figures, "verdict": verdict(pair.main)} for pair in self.pairs}
        worst = self.worst()
        return {
            "card": {
                "bot": self.bot,
                "spec": self.spec,
                "game": self.game,
                "preset": self.preset,
                "seeds": list(self.seeds),
                "hands": self.hands,
                "references": list(self.references),
                "beats": sum(row["verdict"] == "beats" for row in rows.values()),
                "worst": None if worst is None else worst.reference,
                "average": field_average(self.pairs),
                "outcomes": self.outcomes(),
                "lbr": self.lbr,
                "notes": self.notes,
            },
            "matchups": rows,
        }

    def worst(self) -> PairFigures | None:
        """The reference against which the bot does worst (by the verdict's estimate)."""
        return min(self.pairs, key=lambda pair: pair.main["mbb_per_hand"], default=None)

    def outcomes(self) -> dict[str, dict[str, float]]:
        """The bot's hands and chips by how hands ended, over every reference, and their mbb per hand."""
        hands = {kind: sum(p.figures["outcomes"][kind]["hands"] for p in self.pairs) for kind in ENDINGS}
        chips = {kind: sum(p.figures["outcomes"][kind]["chips"] for p in self.pairs) for kind in ENDINGS}
        total = max(sum(hands.values()), 1)
        return {
            kind: {
                "hands": hands[kind],
                "chips": chips[kind],
                "mbb_per_hand": chips[kind] * 1000 / self.big_blind / total,
            }
            for kind in ENDINGS
        }

    def summary(self) -> list[str]:
        """The one-screen terminal summary."""
        lines = [
            f"{self.bot} in {self.game} ({self.preset}: {len(self.references)} references, seeds "
            f"{','.join(map(str, self.seeds))}, {self.hands} hands a match, both seatings)",
            self._beats(),
            "",
            f"  {'reference':<16}{'mbb/h':>9}  {'95% interval':<20}{'duplicate':>16}  estimate  verdict",
        ]
        for pair in self.pairs:
            main, duplicate = pair.main, pair.figures["duplicate"]
            kind = "AIVAT" if main is not duplicate else "duplicate"
            lines.append(
                f"  {pair.reference:<16}{signed(main['mbb_per_hand']):>9}  {_interval(main):<20}"
                f"{_plus_minus(duplicate):>16}  {kind:<9} {verdict(main)}"
            )
        lines += ["", *self._verdict_lines()]
        return lines

    def _beats(self) -> str:
        beats = sum(verdict(pair.main) == "beats" for pair in self.pairs)
        return (
            f"beats {beats} of {len(self.references)} references (95% interval above 0; AIVAT where known, "
            "else duplicate)"
        )

    def _verdict_lines(self) -> list[str]:
        lines = []
        worst = self.worst()
        if worst is not None:
            lines.append(
                f"worst matchup: {worst.reference}, {signed(worst.main['mbb_per_hand'])} mbb/h {_interval(worst.main)}"
            )
        average = field_average(self.pairs)
        if average is not None:
            lines.append(f"average against the field: {_plus_minus(average)} mbb/h (duplicate; cards rank by it)")
        if self.lbr is not None:
            lines.append(
                f"LBR lower bound on exploitability: {self.lbr['mbb_per_hand']:.1f} ± {self.lbr['ci95']:.1f} mbb/h "
                f"({self.lbr['hands']} hands)"
            )
        for what, why in self.notes.items():
            lines.append(f"{NOTES.get(what, what)}: {why}")
        parts = [f"{kind} {signed(o['mbb_per_hand'])} ({o['hands']} hands)" for kind, o in self.outcomes().items()]
        lines.append("where it wins and loses, mbb/h of all hands by how they ended: " + ", ".join(parts))
        return lines

    def markdown(self, plots: bool) -> str:
        """``report.md``: the summary's figures as tables, and the plots."""
        lines = [f"# Report card: `{self.bot}`", "", f"`{self.spec}` in `{self.game}`, preset {self.preset}.", ""]
        lines += [self._beats(), "", *(f"- {line}" for line in self._verdict_lines())]
        lines += [
            "",
            "| reference | mbb/h | 95% interval | duplicate | estimate | verdict |",
            "| --- | ---: | --- | ---: | --- | --- |",
        ]
        for pair in self.pairs:
            main, duplicate = pair.main, pair.figures["duplicate"]
            kind = "AIVAT" if main is not duplicate else "duplicate"
            lines.append(
                f"| `{pair.reference}` | {signed(main['mbb_per_hand'])} | {_interval(main)} | {_plus_minus(duplicate)} "
                f"| {kind} | {verdict(main)} |"
            )
        lines += ["", "| how the hand ended | hands | mbb/h of all hands |", "| --- | ---: | ---: |"]
        lines += [f"| {kind} | {o['hands']} | {signed(o['mbb_per_hand'])} |" for kind, o in self.outcomes().items()]
        if plots:
            lines += [
                "",
                "![win rate by reference](card-winrates.png)",
                "",
                "![cumulative AIVAT-corrected winnings](card-aivat.png)",
            ]
        return "\n".join(lines) + "\n"


def _interval(estimate: dict[str, Any]) -> str:
    low, high = estimate["ci95"]
    return f"[{signed(low)}, {signed(high)}]"


def _plus_minus(estimate: dict[str, Any]) -> str:
    low, high = estimate["ci95"]
    return f"{signed(estimate['mbb_per_hand'])} ±{(high - low) / 2:.1f}"


def rank(cards: dict[str, dict[str, Any]]) -> list[str]:
    """The cards (``report.json`` by bot) by average against the field, best first, as the results pages
    rank a round robin (a card without figures last)."""

    def key(name: str) -> float:
        average = cards[name]["card"]["average"]
        return -average["mbb_per_hand"] if average else float("inf")

    return sorted(cards, key=key)
