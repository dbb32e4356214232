"""Prometheus metrics of the dealer (``--metrics-port``).

Every series is labelled with the match name and, where it concerns a player,
the seat number (1-based) and the player's name:

- ``acpc_dealer_hands_total``: hands played
- ``acpc_dealer_actions_total``: actions taken, by ``action`` (fold, call, raise)
- ``acpc_dealer_response_seconds``: histogram of response times
- ``acpc_dealer_invalid_actions_total``: invalid or unparsable actions (changed to call)
- ``acpc_dealer_warnings_total``: warnings, by ``kind``
- ``acpc_dealer_timeouts_total``: seats that ran out of time
- ``acpc_dealer_errors_total``: match-ending seat errors, by ``kind``
- ``acpc_dealer_chips_won``: chips won so far (negative when lost)
- ``acpc_dealer_matches_running``: matches being played
"""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from acpc_arena.dealer.match import MatchConfig, MatchObserver, MatchResult, WarningKind
from acpc_arena.dealer.seat import SeatFailure
from acpc_arena.protocol.state import Action, State

_ACTION_NAMES = ("fold", "call", "raise")
_RESPONSE_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class DealerMetrics:
    """The metric families, registered once per process."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        player = ["match", "seat", "player"]
        self.hands = Counter("acpc_dealer_hands", "Hands played", ["match"], registry=registry)
        self.actions = Counter("acpc_dealer_actions", "Actions taken", [*player, "action"], registry=registry)
        self.response = Histogram(
            "acpc_dealer_response_seconds", "Response time", player, buckets=_RESPONSE_BUCKETS, registry=registry
        )
        self.invalid = Counter(
            "acpc_dealer_invalid_actions", "Invalid actions changed to call", player, registry=registry
        )
        self.warnings = Counter("acpc_dealer_warnings", "Warnings", [*player, "kind"], registry=registry)
        self.timeouts = Counter("acpc_dealer_timeouts", "Seats that ran out of time", player, registry=registry)
        self.errors = Counter("acpc_dealer_errors", "Match-ending seat errors", [*player, "kind"], registry=registry)
        self.chips = Gauge("acpc_dealer_chips_won", "Chips won so far", player, registry=registry)
        self.running = Gauge("acpc_dealer_matches_running", "Matches being played", registry=registry)

    def serve(self, port: int, host: str = "127.0.0.1") -> None:
        """Serve ``/metrics`` over HTTP from a background thread."""
        start_http_server(port, addr=host)


class MetricsObserver(MatchObserver):
    """Updates the metrics from one match's events."""

    def __init__(self, metrics: DealerMetrics) -> None:
        self.metrics = metrics
        self._labels: list[tuple[str, str, str]] = []
        self._actions: list[list[Counter]] = []
        self._response: list[Histogram] = []

    def match_started(self, config: MatchConfig, stamp: float) -> None:
        m = self.metrics
        self._labels = [(config.name, str(seat + 1), name) for seat, name in enumerate(config.players)]
        self._actions = [[m.actions.labels(*labels, action) for action in _ACTION_NAMES] for labels in self._labels]
        self._response = [m.response.labels(*labels) for labels in self._labels]
        self._hands = m.hands.labels(config.name)
        for labels in self._labels:
            m.chips.labels(*labels).set(0)
        m.running.inc()

    def action_taken(self, seat: int, action: Action, seconds: float) -> None:
        self._actions[seat][action.kind].inc()
        self._response[seat].observe(seconds)

    def warning(self, seat: int | None, kind: WarningKind, text: str) -> None:
        if seat is None or not self._labels:
            return
        self.metrics.warnings.labels(*self._labels[seat], str(kind)).inc()
        if kind in (WarningKind.BAD_ACTION, WarningKind.INVALID_ACTION):
            self.metrics.invalid.labels(*self._labels[seat]).inc()

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        self._hands.inc()
        for seat, total in enumerate(totals):
            self.metrics.chips.labels(*self._labels[seat]).set(total)

    def match_finished(self, config: MatchConfig, result: MatchResult, stamp: float) -> None:
        if self._labels:
            self.metrics.running.dec()
        error = result.error
        if error is not None:
            labels = (config.name, str(error.seat + 1), config.players[error.seat])
            self.metrics.errors.labels(*labels, str(error.kind)).inc()
            if error.kind == SeatFailure.TIMEOUT:
                self.metrics.timeouts.labels(*labels).inc()


class RunMetrics:
    """Metric families of a match runner (``acpc-match --metrics-port``); labels ``a`` and ``b``
    are the two agents' names, ``agent`` one of them.

    - ``acpc_match_hands_total``: hands played in the run
    - ``acpc_match_mbb_per_hand``: A's running result in mbb/h (every hand a sample)
    - ``acpc_match_action_seconds``: histogram of each agent's response times
    - ``acpc_match_errors_total``: matches ended by an agent's failure, by ``kind``
    - ``acpc_match_timeouts_total``: of those, the agents that ran out of time
    - ``acpc_match_matches_total``: matches over, by ``status`` (finished, failed)
    - ``acpc_match_matches_running``: matches being played
    The per-match ``acpc_dealer_*`` series are served too.
    """

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        pair = ["a", "b"]
        self.hands = Counter("acpc_match_hands", "Hands played in the run", pair, registry=registry)
        self.mbb = Gauge("acpc_match_mbb_per_hand", "A's running mbb/h", pair, registry=registry)
        self.action = Histogram(
            "acpc_match_action_seconds",
            "Response time per agent",
            ["agent"],
            buckets=_RESPONSE_BUCKETS,
            registry=registry,
        )
        self.errors = Counter(
            "acpc_match_errors", "Matches ended by an agent", [*pair, "agent", "kind"], registry=registry
        )
        self.timeouts = Counter("acpc_match_timeouts", "Agents that ran out of time", ["agent"], registry=registry)
        self.matches = Counter("acpc_match_matches", "Matches over", [*pair, "status"], registry=registry)
        self.running = Gauge("acpc_match_matches_running", "Matches being played", pair, registry=registry)
        self.dealer = DealerMetrics(registry)

    def serve(self, port: int, host: str = "127.0.0.1") -> None:
        start_http_server(port, addr=host)
