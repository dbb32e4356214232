"""Prometheus metrics of the dealer (``acpc-dealer --metrics-port``) and of a run (``acpc-match --metrics-port``).

The dealer's series are labelled with the match name and, where they concern a
player, the seat number (1-based) and the player's name:

- ``acpc_dealer_hands_total``: hands played
- ``acpc_dealer_actions_total``: actions taken, by ``action`` (fold, call, raise)
- ``acpc_dealer_response_seconds``: histogram of response times (the dealer alone; a run has
  ``acpc_match_action_seconds`` instead, so that there is one latency histogram)
- ``acpc_dealer_invalid_actions_total``: invalid or unparsable actions (changed to call)
- ``acpc_dealer_warnings_total``: warnings, by ``kind``
- ``acpc_dealer_timeouts_total``: seats that ran out of time
- ``acpc_dealer_errors_total``: match-ending seat errors, by ``kind``
- ``acpc_dealer_chips_won``: chips won so far (negative when lost)
- ``acpc_dealer_matches_running``: matches being played

Every counter of a match exists at 0 from its start (a query for errors finds a
series before the first error). No ``_created`` series are exported. A name that is
not UTF-8 (a player name holds any bytes but a few) is a label value with each such
byte written ``\\xff`` (``UnicodeLabels``): the text format is UTF-8.

``serve`` hands the page to a process of its own (``pages``, ``web.side``): the registry is
rendered here at most once a second (``publish`` renders it at once), and that process
answers every scrape from the last page, with bounded connections and timeouts; a
scraper costs the matches nothing.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterable, Iterator

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    disable_created_metrics,
    generate_latest,
    push_to_gateway,
)
from prometheus_client.metrics_core import Metric

from acpc_arena.dealer.observers.page_process import SideServer, start_metrics
from acpc_arena.dealer.server.logfiles import unicode_text
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult, WarningKind
from acpc_arena.dealer.server.seat import SeatFailure
from acpc_arena.protocol.state import Action, State

# A ``_created`` timestamp beside every counter and histogram doubles the series and says
# nothing a dashboard uses; prometheus_client makes this a process-wide switch.
disable_created_metrics()  # type: ignore[no-untyped-call]

_ACTION_NAMES = ("fold", "call", "raise")
_RESPONSE_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
ERROR_KINDS = tuple(str(kind) for kind in SeatFailure)
"""The ``kind`` label values of the error series (a seat's match-ending failure)."""


class DealerMetrics:
    """The dealer's metric families in ``registry``.

    ``latency=False`` leaves out the response-time histogram (a run keeps its own, per agent).
    """

    @classmethod
    def fresh(cls) -> DealerMetrics:
        """The dealer's metrics in a registry of their own (``acpc-dealer --metrics-port``)."""
        return cls(CollectorRegistry())

    def __init__(self, registry: CollectorRegistry = REGISTRY, latency: bool = True) -> None:
        self.registry = registry
        self.server: SideServer | None = None
        """The process serving the page (``serve``)."""
        player = ["match", "seat", "player"]
        self.hands = Counter("acpc_dealer_hands", "Hands played", ["match"], registry=registry)
        self.actions = Counter("acpc_dealer_actions", "Actions taken", [*player, "action"], registry=registry)
        self.response = (
            Histogram(
                "acpc_dealer_response_seconds", "Response time", player, buckets=_RESPONSE_BUCKETS, registry=registry
            )
            if latency
            else None
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
        """Serve this registry on ``http://host:port/metrics`` from a process of its own; ``OSError`` when the
        port cannot be had."""
        self.server = serve_registry(self.registry, port, host)

    def publish(self) -> None:
        """Hand the served page the registry as it is now (the final values, before a last scrape)."""
        publish(self.server)


class UnicodeLabels:
    """``registry``'s metrics with every label value valid Unicode (``logfiles.unicode_text``), as the
    Prometheus text format must be; a name's byte that is not UTF-8 would fail the page."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterator[Metric]:
        for metric in self.registry.collect():
            shown = copy.copy(metric)
            shown.samples = [
                sample._replace(labels={key: unicode_text(value) for key, value in sample.labels.items()})
                for sample in metric.samples
            ]
            yield shown


def serve_registry(registry: CollectorRegistry, port: int, host: str) -> SideServer:
    """``registry``'s page served on ``host:port`` by a process of its own, rendered here once a second."""
    return start_metrics(lambda: generate_latest(UnicodeLabels(registry)), host, port)


def publish(server: SideServer | None) -> None:
    """Render the page now and hand it to ``server`` (waiting up to a second for it to be taken)."""
    if server is not None:
        server.feed.flush()


class MetricsObserver(MatchObserver):
    """Updates the dealer's metrics from one match's events.

    ``forget=True`` removes the match's label sets when it ends, so that a run of many
    matches does not grow its series without bound (a run keeps its own totals).
    """

    def __init__(self, metrics: DealerMetrics, forget: bool = False) -> None:
        self.metrics = metrics
        self.forget = forget
        self._match = ""
        self._labels: list[tuple[str, str, str]] = []
        self._actions: list[list[Counter]] = []
        self._response: list[Histogram] = []

    def match_started(self, config: MatchConfig, stamp: float) -> None:
        m = self.metrics
        self._match = config.name
        self._labels = [(config.name, str(seat + 1), name) for seat, name in enumerate(config.players)]
        self._actions = [[m.actions.labels(*labels, action) for action in _ACTION_NAMES] for labels in self._labels]
        if m.response is not None:
            self._response = [m.response.labels(*labels) for labels in self._labels]
        self._hands = m.hands.labels(config.name)
        for labels in self._labels:
            m.chips.labels(*labels).set(0)
            m.invalid.labels(*labels)
            m.timeouts.labels(*labels)
            for kind in WarningKind:
                m.warnings.labels(*labels, str(kind))
            for error in ERROR_KINDS:
                m.errors.labels(*labels, error)
        m.running.inc()

    def action_taken(self, seat: int, action: Action, seconds: float) -> None:
        self._actions[seat][action.kind].inc()
        if self._response:
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
        if self.forget:
            self.forget_match()

    def forget_match(self) -> None:
        """Remove every series of this match (its label sets) from the registry."""
        m = self.metrics
        per_player: list[tuple[Counter | Gauge | Histogram, Iterable[str]]] = [
            (m.actions, _ACTION_NAMES),
            (m.warnings, [str(kind) for kind in WarningKind]),
            (m.errors, ERROR_KINDS),
        ]
        for labels in self._labels:
            for family in (m.invalid, m.timeouts, m.chips, m.response):
                if family is not None:
                    _remove(family, labels)
            for family, values in per_player:
                for value in values:
                    _remove(family, (*labels, value))
        if self._match:
            _remove(m.hands, (self._match,))
        self._labels = []


def _remove(family: Counter | Gauge | Histogram, labels: tuple[str, ...]) -> None:
    """Remove one label set; one never created (a match that ended before it started) is no error."""
    with contextlib.suppress(KeyError):
        family.remove(*labels)


class RunMetrics:
    """Metric families of a match runner (``acpc-match --metrics-port``); labels ``a`` and ``b``
    are the two agents' names, ``agent`` one of them.

    - ``acpc_match_run_info``: the run's ``a``, ``b``, ``game``, ``seeds`` and ``hands`` (per match)
    - ``acpc_match_hands_planned``: hands the run is to play (matches × hands)
    - ``acpc_match_hands_total``: hands played in the run
    - ``acpc_match_mbb_per_hand``: A's running result in mbb/h (every hand a sample)
    - ``acpc_match_duplicate_mbb_per_hand``, ``acpc_match_duplicate_ci95_low``,
      ``acpc_match_duplicate_ci95_high``: A's duplicate mbb/h and its 95% interval over
      the hand pairs played so far (``acpc_match_duplicate_pairs``); at the end, the report's
    - ``acpc_match_action_seconds``: histogram of each agent's response times
    - ``acpc_match_errors_total``: matches ended by an agent's failure, by ``kind``
    - ``acpc_match_timeouts_total``: of those, the agents that ran out of time
    - ``acpc_match_matches_total``: matches over, by ``status`` (finished, failed)
    - ``acpc_match_matches_running``: matches being played
    The ``acpc_dealer_*`` series of the matches being played are served too (without
    the dealer's response histogram); a match's series go when it ends.
    """

    @classmethod
    def fresh(cls) -> RunMetrics:
        """A run's metrics in a registry of their own (``acpc-match --metrics-port``)."""
        return cls(CollectorRegistry())

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.registry = registry
        self.server: SideServer | None = None
        """The process serving the page (``serve``)."""
        pair = ["a", "b"]
        self.info = Info("acpc_match_run", "The run: agents, game, seeds, hands per match", registry=registry)
        self.planned = Gauge("acpc_match_hands_planned", "Hands the run is to play", pair, registry=registry)
        self.hands = Counter("acpc_match_hands", "Hands played in the run", pair, registry=registry)
        self.mbb = Gauge("acpc_match_mbb_per_hand", "A's running mbb/h", pair, registry=registry)
        self.duplicate = Gauge(
            "acpc_match_duplicate_mbb_per_hand", "A's duplicate mbb/h so far", pair, registry=registry
        )
        self.duplicate_low = Gauge(
            "acpc_match_duplicate_ci95_low",
            "Lower bound of the duplicate mbb/h's 95% interval",
            pair,
            registry=registry,
        )
        self.duplicate_high = Gauge(
            "acpc_match_duplicate_ci95_high",
            "Upper bound of the duplicate mbb/h's 95% interval",
            pair,
            registry=registry,
        )
        self.duplicate_pairs = Gauge(
            "acpc_match_duplicate_pairs", "Duplicate hand pairs so far", pair, registry=registry
        )
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
        self.dealer = DealerMetrics(registry, latency=False)

    def match_observer(self) -> MetricsObserver:
        """An observer of one of the run's matches: its ``acpc_dealer_*`` series, gone when it ends."""
        return MetricsObserver(self.dealer, forget=True)

    def start(self, a: str, b: str, game: str, seeds: Iterable[int], hands: int, matches: int) -> None:
        """Describe the run and create its series at 0, before the first match."""
        seeds = list(seeds)
        self.info.info({"a": a, "b": b, "game": game, "seeds": ",".join(map(str, seeds)), "hands": str(hands)})
        self.planned.labels(a, b).set(hands * matches)
        for family in (self.hands, self.mbb, self.running, self.duplicate_pairs):
            family.labels(a, b)
        for status in ("finished", "failed"):
            self.matches.labels(a, b, status)
        for agent in (a, b):
            self.action.labels(agent)
            self.timeouts.labels(agent)
            for kind in ERROR_KINDS:
                self.errors.labels(a, b, agent, kind)

    def serve(self, port: int, host: str = "127.0.0.1") -> None:
        """Serve this registry on ``http://host:port/metrics`` from a process of its own; ``OSError`` when the
        port cannot be had."""
        self.server = serve_registry(self.registry, port, host)

    def publish(self) -> None:
        """Hand the served page the registry as it is now (the final values, before a last scrape)."""
        publish(self.server)

    def push(self, gateway: str, job: str = "acpc-match") -> None:
        """Send the current values to a Prometheus Pushgateway (``host:port`` or a URL)."""
        push_to_gateway(gateway, job=job, registry=UnicodeLabels(self.registry))
