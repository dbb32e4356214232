"""What a run shows while it plays (``RunProgress``): the progress bar, the Prometheus series (hands,
mbb/h, the duplicate estimate so far, errors and timeouts) and the live tables of ``--web``; and
the failures it tells, each once."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tqdm import tqdm

from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.estimates import Estimate, Running
from acpc_arena.dealer.arena.runner import MatchOutcome, MatchSpec, RunObserver, RunSpec
from acpc_arena.dealer.observers.feed import Feed
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult
from acpc_arena.protocol.state import Action, State

if TYPE_CHECKING:  # the name alone: a run without metrics starts without prometheus_client
    from acpc_arena.dealer.observers.metrics import RunMetrics


class _MatchProgress(MatchObserver):
    """Feeds one match's hands into the run's progress bar and metrics."""

    def __init__(self, run: RunProgress, match: MatchSpec) -> None:
        self.run = run
        self.match = match
        self.a_seat = match.a_seat
        self.seat_names = [c.name for c in match.seating(run.spec.contestants)]

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        self.run.hand(self.match, values[config.player_of_seat(state.hand_id, self.a_seat)])

    def action_taken(self, seat: int, action: Action, seconds: float) -> None:
        if self.run.metrics is not None:
            self.run.metrics.action.labels(self.seat_names[seat]).observe(seconds)


DUPLICATE_EVERY = 100
"""The duplicate gauges are recomputed every this many new hand pairs (and set from the report at the end)."""


class RunProgress(RunObserver):
    """The run's progress bar, metrics (``metrics``) and live tables (``live``); the failures in ``failures``,
    the finished matches in ``finished``."""

    def __init__(self, spec: RunSpec, metrics: RunMetrics | None, quiet: bool, live: Feed | None = None) -> None:
        self.spec = spec
        self.live = live
        """The tables shown by ``--web`` (their page process's feed)."""
        self.names = (spec.a.name, "+".join(c.name for c in spec.contestants[1:]))
        """A and its opponents (the metrics' labels)."""
        self.metrics = metrics
        total = len(spec.matches()) * spec.hands
        self.bar = tqdm(
            total=total, unit="hand", disable=quiet, file=sys.stderr, dynamic_ncols=True, smoothing=0.1, mininterval=0.5
        )
        self.hands = 0
        self.chips = 0.0
        self.big_blind = spec.game.big_blind
        self.failures: list[str] = []
        self.finished: list[MatchOutcome] = []
        self._notes_told: set[str] = set()
        self._a_values: dict[tuple[int, int], list[float]] = {}
        self._pairs = Running()
        self._pairs_shown = 0
        if metrics is not None:
            metrics.start(*self.names, spec.game_file, spec.seeds, spec.hands, len(spec.matches()))

    def hand(self, match: MatchSpec, value_a: float) -> None:
        self.hands += 1
        self.chips += value_a
        mbb = 1000 * self.chips / self.hands / self.big_blind
        self.bar.update(1)
        if self.hands % 50 == 0:
            self.bar.set_postfix_str(f"{self.names[0]} {mbb:+.0f} mbb/h", refresh=False)
        if self.metrics is not None:
            self.metrics.hands.labels(*self.names).inc()
            self.metrics.mbb.labels(*self.names).set(mbb)
            self._pair(match, value_a)

    def _pair(self, match: MatchSpec, value_a: float) -> None:
        """Hand *i* of a seed's two seatings makes a duplicate pair once both are played."""
        mine = self._a_values.setdefault((match.seed, match.a_seat), [])
        other = self._a_values.get((match.seed, 1 - match.a_seat), [])
        mine.append(value_a)
        index = len(mine) - 1
        if index < len(other):
            self._pairs.add((value_a + other[index]) / 2)
        if self._pairs.count - self._pairs_shown >= DUPLICATE_EVERY:
            self.set_duplicate(self._pairs.estimate(self.big_blind))

    def set_duplicate(self, figure: Estimate) -> None:
        """The duplicate gauges: A's mbb/h, its 95% interval and the number of pairs."""
        assert self.metrics is not None
        self._pairs_shown = figure.samples
        self.metrics.duplicate_pairs.labels(*self.names).set(figure.samples)
        if figure.samples:
            self.metrics.duplicate.labels(*self.names).set(figure.mbb_per_hand)
            self.metrics.duplicate_low.labels(*self.names).set(figure.ci95[0])
            self.metrics.duplicate_high.labels(*self.names).set(figure.ci95[1])

    def match_started(self, match: MatchSpec, config: MatchConfig) -> list[MatchObserver]:
        observers: list[MatchObserver] = [_MatchProgress(self, match)]
        if self.metrics is not None:
            self.metrics.running.labels(*self.names).inc()
            observers.append(self.metrics.match_observer())
        if self.live is not None:
            observers.append(self.live.table(match.name, config))
        return observers

    def external_waiting(self, match: MatchSpec, contestant: Contestant, host: str, port: int) -> None:
        tqdm.write(
            f"{contestant.name}: connect an ACPC bot to {host} {port} "
            f"(match {match.name}, {contestant.label.upper()} in seat {match.seat_of(contestant.label) + 1}; "
            f"waiting up to {self.spec.external_timeout:g} s, --external-timeout)",
            file=sys.stdout,
        )
        sys.stdout.flush()

    def match_finished(self, outcome: MatchOutcome) -> None:
        self.finished.append(outcome)
        if self.live is not None:
            self.live.finished(outcome.spec.name, outcome.error)
        result: MatchResult | None = outcome.result
        if self.metrics is not None:
            if result is not None:
                self.metrics.running.labels(*self.names).dec()
            status = "finished" if outcome.error is None else "failed"
            self.metrics.matches.labels(*self.names, status).inc()
            if result is not None and result.error is not None:
                agent = outcome.spec.seating(self.spec.contestants)[result.error.seat].name
                self.metrics.errors.labels(*self.names, agent, result.error.kind).inc()
                if result.error.kind == "timeout":
                    self.metrics.timeouts.labels(agent).inc()
        if outcome.error is not None:
            # An agent's note (its usage text, its traceback) is told once, not once a match.
            notes = [note for note in outcome.agent_notes if note not in self._notes_told]
            self._notes_told.update(notes)
            text = f"match {outcome.spec.name} failed: {outcome.error}" + (f" [{'; '.join(notes)}]" if notes else "")
            self.failures.append(text)
            if not self.bar.disable:  # told as it happens beside the bar; the summary tells it again
                self.bar.write(text)
