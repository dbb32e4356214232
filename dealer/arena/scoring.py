"""A run's report from the logs its matches left on disk (``score_run``), whatever became of the
matches: ``acpc-match`` and ``play`` score their runs with it. A match the runner played whole is
scored from what its ``LogTally`` kept as it wrote the log (what ``read_log`` would read back)."""

from __future__ import annotations

from acpc_arena.dealer.arena.reports import MultiReport, Report, build_multi_report, build_report
from acpc_arena.dealer.arena.runner import ChangedActions, MatchOutcome, RunSpec
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.match_log import LoggedMatch, read_log


def score_run(
    spec: RunSpec, outcomes: list[MatchOutcome], failures: list[str], progress: bool = False
) -> Report | MultiReport | None:
    """The report of a run's logs (``outcomes`` in the order of ``spec.matches()``), or None when no
    match played a hand; a log that cannot be scored is told in ``failures``."""
    logged = _logged_matches(outcomes, spec.game, failures)
    if not logged:
        return None
    errors = {o.log: o.error for o in outcomes if o.error}
    if spec.more:
        return build_multi_report(logged, errors)
    return build_report(logged, a=spec.a.name, errors=errors, progress=progress)


def _logged_matches(outcomes: list[MatchOutcome], game: Game, failures: list[str]) -> list[LoggedMatch]:
    """The logs on disk with at least one hand, whatever became of their matches (a full disk, a crash)."""
    logged = []
    for outcome in outcomes:
        if not outcome.log.exists():
            continue
        try:
            kept = outcome.tally.logged(outcome.log) if outcome.tally is not None else None
            match = kept if kept is not None else read_log(outcome.log, game)
        except ProtocolError as exc:
            if outcome.error is None:  # else the failure is already told
                failures.append(f"match {outcome.spec.name}: cannot score its log: {exc}")
            continue
        if match.hands:
            logged.append(match)
    return logged


def run_changed_actions(spec: RunSpec, outcomes: list[MatchOutcome]) -> dict[str, ChangedActions]:
    """The actions the dealer changed over the run's matches, by contestant (each named, zeros too)."""
    total = {c.name: ChangedActions(invalid=0, fixed=0) for c in spec.contestants}
    for outcome in outcomes:
        for name, changed in outcome.changed_actions.items():
            counts = total.setdefault(name, ChangedActions(invalid=0, fixed=0))
            counts["invalid"] += changed["invalid"]
            counts["fixed"] += changed["fixed"]
    return total


def changed_lines(changed: dict[str, ChangedActions]) -> list[str]:
    """A line for each player the dealer changed actions of (a bot author's news: its replies were not
    played as sent), none for the others."""
    return [
        f"{name}: {counts['invalid']} invalid actions played as a call, {counts['fixed']} no-limit raises "
        "resized into range (the dealer's fixes, as the C dealer's; report.json: changed_actions)"
        for name, counts in changed.items()
        if counts["invalid"] or counts["fixed"]
    ]
