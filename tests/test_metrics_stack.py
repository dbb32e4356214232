"""The metric families as exported, and the docker/ stack that reads them (no docker daemon here):
the compose file, the Prometheus configuration (checked by ``promtool``), the Grafana
provisioning and dashboard, the Dockerfile."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry, generate_latest

from acpc_arena.dealer.arena.match_cli import parser as match_parser
from acpc_arena.dealer.cli import parse_args as dealer_parse_args
from acpc_arena.dealer.match import MatchConfig, MatchResult
from acpc_arena.dealer.metrics import DealerMetrics, MetricsObserver, RunMetrics
from acpc_arena.dealer.seat import SeatError, SeatFailure
from acpc_arena.protocol.game import load_game
from tests.processes import REPO

DOCKER = REPO / "docker"
PROMTOOL = shutil.which("promtool")


def _exported_names() -> set[str]:
    """The sample names a scrape can hold: every family of a run and of the dealer, by its type."""
    registry, dealer = CollectorRegistry(), CollectorRegistry()
    RunMetrics(registry)
    DealerMetrics(dealer)  # acpc-dealer's, with its response histogram
    names: set[str] = set()
    suffixes = {"counter": ["_total"], "gauge": [""], "histogram": ["_bucket", "_count", "_sum"], "info": ["_info"]}
    for source in (registry, dealer):
        for family in source.collect():
            names.update(family.name + suffix for suffix in suffixes[family.type])
    return names


def _match_config(name: str) -> MatchConfig:
    return MatchConfig(name=name, game=load_game("kuhn"), game_file="kuhn", hands=10, seed=1, players=("alice", "bob"))


def _page(registry: CollectorRegistry) -> str:
    return generate_latest(registry).decode()


def test_serve_uses_the_registry_it_is_given() -> None:
    registry = CollectorRegistry()
    metrics = DealerMetrics(registry)
    observer = MetricsObserver(metrics)
    observer.match_started(_match_config("m1"), 0.0)
    page = _page(registry)
    assert 'acpc_dealer_chips_won{match="m1",player="alice",seat="1"} 0.0' in page
    # The page that serve() sends is this registry's (a second registry is independent of it).
    other = CollectorRegistry()
    DealerMetrics(other)
    assert "alice" not in _page(other)


def test_counters_exist_at_zero_from_the_start_and_no_created_series() -> None:
    registry = CollectorRegistry()
    observer = MetricsObserver(DealerMetrics(registry))
    observer.match_started(_match_config("m1"), 0.0)
    page = _page(registry)
    for kind in ("disconnect", "timeout", "line_too_long", "invalid_actions", "version"):
        assert f'acpc_dealer_errors_total{{kind="{kind}",match="m1",player="bob",seat="2"}} 0.0' in page
    assert 'acpc_dealer_timeouts_total{match="m1",player="alice",seat="1"} 0.0' in page
    assert 'acpc_dealer_invalid_actions_total{match="m1",player="alice",seat="1"} 0.0' in page
    assert "_created" not in page


def test_a_run_forgets_each_match_when_it_ends() -> None:
    registry = CollectorRegistry()
    metrics = RunMetrics(registry)
    metrics.start("a-x", "b-y", "kuhn", [1, 2], 10, 4)
    for number in range(50):  # a long tournament: the page must not grow with every match
        config = _match_config(f"m{number}")
        observer = MetricsObserver(metrics.dealer, forget=True)
        observer.match_started(config, 0.0)
        error = SeatError(1, "gone", SeatFailure.DISCONNECT) if number % 2 else None
        observer.match_finished(config, MatchResult(totals=[0.0, 0.0], hands_played=10, error=error), 1.0)
    page = _page(registry)
    assert "match=" not in page
    assert "acpc_dealer_matches_running 0.0" in page
    assert "acpc_dealer_response_seconds" not in page  # the run's one latency histogram is acpc_match_action_seconds
    assert 'acpc_match_action_seconds_count{agent="a-x"} 0.0' in page
    assert 'acpc_match_hands_planned{a="a-x",b="b-y"} 40.0' in page
    assert 'acpc_match_run_info{a="a-x",b="b-y",game="kuhn",hands="10",seeds="1,2"} 1.0' in page


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    return data


def _command(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    words = shlex.split(command) if isinstance(command, str) else list(command)
    if words[:2] == ["sh", "-c"]:
        words = shlex.split(words[2].replace("$${MATCH_ARGS:-", "").replace("}", ""))
    return words


def test_compose_file_services_ports_and_volumes_agree() -> None:
    compose = _compose()
    services = compose["services"]
    assert {"match", "dealer", "agent-a", "agent-b", "prometheus", "grafana"} <= set(services)
    exposed = re.findall(r"^EXPOSE (.+)$", (DOCKER / "Dockerfile").read_text(), re.MULTILINE)
    exposed_ports = {p for spec in exposed for p in spec.split()}
    # The run and the dealer: their command lines parse with the real parsers, serve metrics on
    # the port they publish, on every address, and the image EXPOSEs that port.
    match_args = match_parser().parse_args(_command(services["match"])[1:])
    assert match_args.host == "0.0.0.0" and match_args.metrics_linger > 0
    dealer_options = dealer_parse_args(_command(services["dealer"])[1:])
    assert dealer_options.host == "0.0.0.0" and dealer_options.metrics_linger > 0
    metrics_ports = {"match": match_args.metrics_port, "dealer": dealer_options.metrics_port}
    for name, port in metrics_ports.items():
        assert f"{port}:{port}" in services[name]["ports"]
        assert str(port) in exposed_ports
        assert services[name]["environment"]["METRICS_PORT"] == str(port)  # what the HEALTHCHECK asks
    # The agents connect to the dealer's seats.
    seats = dealer_options.ports
    for agent, seat in (("agent-a", 0), ("agent-b", 1)):
        words = _command(services[agent])
        assert words[0] == "acpc-agent" and words[2] == "dealer" and int(words[3]) == seats[seat]
    # Prometheus scrapes exactly those metrics ports, by service name.
    prometheus = yaml.safe_load((DOCKER / "prometheus" / "prometheus.yml").read_text())
    targets = {t for job in prometheus["scrape_configs"] for c in job["static_configs"] for t in c["targets"]}
    assert targets == {f"{name}:{port}" for name, port in metrics_ports.items()}
    # Every bind mount exists; every named volume is declared.
    for service in services.values():
        for volume in service.get("volumes", []):
            source, _target = volume.split(":")[:2]
            if source.startswith("."):
                assert (DOCKER / source).exists(), volume
            else:
                assert source in compose["volumes"], volume
    # Grafana: the datasource points at the prometheus service, the dashboards provider at the mount.
    datasources = yaml.safe_load((DOCKER / "grafana/provisioning/datasources/prometheus.yml").read_text())
    (source,) = datasources["datasources"]
    assert source["url"] == "http://prometheus:9090" and "9090:9090" in services["prometheus"]["ports"]
    providers = yaml.safe_load((DOCKER / "grafana/provisioning/dashboards/acpc-arena.yml").read_text())
    mounts = dict(v.split(":")[:2] for v in services["grafana"]["volumes"])
    assert mounts["./grafana/dashboards"] == providers["providers"][0]["options"]["path"]
    dashboard = json.loads((DOCKER / "grafana/dashboards/acpc-arena.json").read_text())
    assert {panel["datasource"]["uid"] for panel in dashboard["panels"]} == {source["uid"]}


def test_dockerfile_runs_as_a_user_with_a_healthcheck_and_a_harmless_default_command() -> None:
    text = (DOCKER / "Dockerfile").read_text()
    users = re.findall(r"^USER (\S+)", text, re.MULTILINE)
    assert users and users[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*CMD ", text, re.MULTILINE | re.DOTALL)
    (cmd,) = re.findall(r"^CMD (.+)$", text, re.MULTILINE)
    assert json.loads(cmd) == ["cat", "/opt/acpc-arena/docker/usage.txt"]
    assert "COPY docker/usage.txt docker/usage.txt" in text
    usage = (DOCKER / "usage.txt").read_text()
    assert "acpc-match" in usage and "acpc-dealer" in usage and "docker compose" in usage


def _dashboard_queries() -> list[tuple[str, str]]:
    dashboard = json.loads((DOCKER / "grafana/dashboards/acpc-arena.json").read_text())
    return [(panel["title"], target["expr"]) for panel in dashboard["panels"] for target in panel["targets"]]


def test_every_dashboard_query_names_exported_metrics() -> None:
    exported = _exported_names()
    used = set()
    for title, expr in _dashboard_queries():
        names = set(re.findall(r"\bacpc_[a-z0-9_]+", expr))
        assert names, (title, expr)
        assert names <= exported, (title, names - exported)
        used |= names
    # What the issue asks the dashboard to show.
    for needed in (
        "acpc_match_hands_total",
        "acpc_match_duplicate_mbb_per_hand",
        "acpc_match_duplicate_ci95_low",
        "acpc_match_duplicate_ci95_high",
        "acpc_match_action_seconds_bucket",
        "acpc_match_errors_total",
        "acpc_match_timeouts_total",
    ):
        assert needed in used, needed


@pytest.mark.skipif(PROMTOOL is None, reason="no promtool (Debian's prometheus package)")
def test_promtool_accepts_the_prometheus_config_and_every_dashboard_query(tmp_path: Path) -> None:
    assert PROMTOOL is not None
    checked = subprocess.run(
        [PROMTOOL, "check", "config", "--syntax-only", str(DOCKER / "prometheus" / "prometheus.yml")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # Each query as a recording rule: promtool parses its PromQL.
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {"record": f"dashboard:query{i}", "expr": expr} for i, (_, expr) in enumerate(_dashboard_queries())
                ],
            }
        ]
    }
    (tmp_path / "rules.yml").write_text(yaml.safe_dump(rules))
    checked = subprocess.run([PROMTOOL, "check", "rules", str(tmp_path / "rules.yml")], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
