"""The metric families as exported, and the docker/ stack that reads them (no docker daemon here):
the compose file, the Prometheus configuration (checked by ``promtool``), the Grafana
provisioning and dashboard, the Dockerfile."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry, generate_latest

from acpc_arena.dealer.commands.dealer_options import parse_args as dealer_parse_args
from acpc_arena.dealer.commands.match import parser as match_parser
from acpc_arena.dealer.observers.metrics import DealerMetrics, MetricsObserver, RunMetrics
from acpc_arena.dealer.server.match import MatchConfig, MatchResult
from acpc_arena.dealer.server.seat import SeatError, SeatFailure
from acpc_arena.protocol.game import load_game
from tests.helpers.processes import REPO

DOCKER = REPO / "docker"
PROMTOOL = shutil.which("promtool")
PROMETHEUS = shutil.which("prometheus")


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


def _prometheus_targets() -> dict[str, str]:
    """Each scrape target of docker/prometheus/prometheus.yml as service:port, and how Prometheus
    finds it: "static" (always scraped) or "dns" (scraped while the name resolves)."""
    prometheus = yaml.safe_load((DOCKER / "prometheus" / "prometheus.yml").read_text())
    targets = {}
    for job in prometheus["scrape_configs"]:
        assert set(job) <= {"job_name", "static_configs", "dns_sd_configs", "relabel_configs"}, job
        for config in job.get("static_configs", []):
            targets.update(dict.fromkeys(config["targets"], "static"))
        for config in job.get("dns_sd_configs", []):
            assert config["type"] == "A"  # Docker's embedded DNS answers a service's name with A records
            targets.update(dict.fromkeys((f"{name}:{config['port']}" for name in config["names"]), "dns"))
    return targets


def _metrics_ports(services: dict[str, Any]) -> dict[str, int]:
    """The metrics port of the run and of the dealer, read from their command lines by the real parsers."""
    match_args = match_parser().parse_args(_command(services["match"])[1:])
    dealer_options = dealer_parse_args(_command(services["dealer"])[1:])
    return {"match": match_args.metrics_port, "dealer": dealer_options.metrics_port}


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
    metrics_ports = _metrics_ports(services)
    for name, port in metrics_ports.items():
        assert f"{port}:{port}" in services[name]["ports"]
        assert str(port) in exposed_ports
        assert services[name]["environment"]["METRICS_PORT"] == str(port)  # what the HEALTHCHECK asks
    # The agents connect to the dealer's seats.
    seats = dealer_options.ports
    for agent, seat in (("agent-a", 0), ("agent-b", 1)):
        words = _command(services[agent])
        assert words[0] == "acpc-agent" and words[2] == "dealer" and int(words[3]) == seats[seat]
    # Prometheus scrapes exactly those metrics ports, by service name, whatever their profiles; a
    # target it does not discover by DNS (which finds only the services started) is a service of
    # the default profile, so that `up` without a profile shows no target down.
    targets = _prometheus_targets()
    assert set(targets) == {f"{name}:{port}" for name, port in metrics_ports.items()}
    default_profile = {name for name, service in services.items() if not service.get("profiles")}
    for target, found_by in targets.items():
        assert found_by == "dns" or target.split(":")[0] in default_profile, target
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


def test_dockerfile_copies_every_file_that_pip_install_reads() -> None:
    """`pip install .` in the image builds from pyproject.toml, its readme and license files and
    the package folders; a missing license file would leave it out of the installed metadata."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    needed = {"pyproject.toml", pyproject["project"]["readme"], *pyproject["project"]["license-files"]}
    needed |= set(pyproject["tool"]["setuptools"]["package-dir"].values())
    copies = re.findall(r"^COPY (.+)$", (DOCKER / "Dockerfile").read_text(), re.MULTILINE)
    copied = {source for line in copies for source in line.split()[:-1]}
    assert needed <= copied, needed - copied


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


def _profile_services(services: dict[str, Any], profiles: tuple[str, ...]) -> set[str]:
    """The services that `docker compose [--profile P]... up` starts: those without a profile and
    those of a profile named (the Compose specification's "profiles")."""
    return {
        name
        for name, service in services.items()
        if not service.get("profiles") or set(service["profiles"]) & set(profiles)
    }


# Mount and network namespaces of their own; a PID namespace too, so that Prometheus ends with the
# helper (its PID 1) even when the test's timeout kills unshare (--kill-child).
UNSHARE = ["unshare", "--mount", "--net", "--pid", "--fork", "--kill-child"]


def _can_unshare() -> bool:
    if os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("ip")):
        return False
    return subprocess.run([*UNSHARE, "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(PROMETHEUS is None, reason="no prometheus binary (apt-get install prometheus; .ci/run installs it)")
@pytest.mark.skipif(not _can_unshare(), reason="needs root to run Prometheus in a network namespace of its own")
@pytest.mark.slow  # make test-slow (~17 s): test_metrics_prometheus.py scrapes a run with a real Prometheus
@pytest.mark.parametrize("profiles", [(), ("dealer",)])
def test_prometheus_scrapes_the_services_started_and_no_other(tmp_path: Path, profiles: tuple[str, ...]) -> None:
    """The repository's prometheus.yml in a real Prometheus, with names resolved as Docker's embedded
    DNS resolves them (only the services running): every started service's metrics are scraped, up,
    under instance service:port, and a service not started (the dealer's, by default) has no target."""
    services = _compose()["services"]
    started = _profile_services(services, profiles)
    running = {name: port for name, port in _metrics_ports(services).items() if name in started}
    assert ("dealer" in running) == ("dealer" in profiles)
    done = subprocess.run(
        [*UNSHARE, sys.executable, "-m", "tests.helpers.compose_dns", str(tmp_path),
         *(f"{name}={port}" for name, port in running.items())],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert sorted((t["instance"], t["health"], t["url"]) for t in result["targets"]) == sorted(
        (f"{name}:{port}", "up", f"http://127.0.0.1:{port}/metrics") for name, port in running.items()
    )
    # Every service was looked up, the one not running too: it gave no target.
    assert set(result["asked"]) == set(_metrics_ports(services))


def _compose_v2() -> list[str] | None:
    """The command of Compose v2 or later (the docker CLI plugin, or a standalone docker-compose of
    version 2 on), if any; docker-compose 1 refuses the file's top-level `name`."""
    for command in (["docker", "compose"], ["docker-compose"]):
        if shutil.which(command[0]) is None:
            continue
        version = subprocess.run([*command, "version", "--short"], capture_output=True, text=True)
        major = version.stdout.strip().lstrip("v").split(".")[0]
        if version.returncode == 0 and major.isdigit() and int(major) >= 2:
            return command
    return None


COMPOSE_V2 = _compose_v2()


@pytest.mark.skipif(COMPOSE_V2 is None, reason="no Compose v2 (docker compose, or a docker-compose 2 or later)")
@pytest.mark.parametrize("profiles", [(), ("dealer",)])
def test_compose_v2_accepts_the_file_and_starts_the_services_of_the_profiles(profiles: tuple[str, ...]) -> None:
    assert COMPOSE_V2 is not None
    options = [option for profile in profiles for option in ("--profile", profile)]
    config = subprocess.run(
        [*COMPOSE_V2, "-f", str(DOCKER / "compose.yaml"), *options, "config", "--format", "json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert config.returncode == 0, config.stderr
    resolved = json.loads(config.stdout)
    assert resolved["name"] == "acpc-arena"
    assert set(resolved["services"]) == _profile_services(_compose()["services"], profiles)


def _readme_commands() -> list[list[str]]:
    """The command lines of docker/README.md's shell blocks, as words."""
    blocks = re.findall(r"```sh\n(.*?)```", (DOCKER / "README.md").read_text(), re.DOTALL)
    return [shlex.split(line) for block in blocks for line in block.splitlines() if line.strip()[:1] not in ("", "#")]


def _options(words: list[str], flags: set[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Leading options of ``words``: those in ``flags`` take no value, any other one takes the next
    word; returns them by name, and the words from the first that is no option on."""
    found: dict[str, list[str]] = {}
    while words and words[0].startswith("-"):
        name, words = words[0], words[1:]
        if name not in flags:
            found.setdefault(name, []).append(words[0])
            words = words[1:]
    return found, words


def test_docker_readme_commands_fit_the_files_as_they_are() -> None:
    compose = _compose()
    services = compose["services"]
    profiles = {profile for service in services.values() for profile in service.get("profiles", [])}
    dockerfile = (DOCKER / "Dockerfile").read_text()
    build_args = set(re.findall(r"^ARG (\w+)", dockerfile, re.MULTILINE))
    image = services["match"]["image"]
    interpolated = set(re.findall(r"(?<!\$)\$\{(\w+)", (DOCKER / "compose.yaml").read_text()))
    commands = _readme_commands()
    for words in commands:
        while re.fullmatch(r"\w+=.*", words[0]):  # VAR=value before the command: a variable compose reads
            variable, value = words.pop(0).split("=", 1)
            assert variable in interpolated, variable
            assert variable == "MATCH_ARGS"
            match_parser().parse_args(shlex.split(value))
        tool = ["podman-compose"] if words[0] == "podman-compose" else words[:2]
        options, rest = _options(words[len(tool) :], {"--rm", "--build"})
        if tool[1:] == ["build"]:  # docker build, podman build
            assert (REPO / options["-f"][0]).is_file() and options["-t"] == [image] and rest == ["."]
            assert {arg.split("=")[0] for arg in options.get("--build-arg", [])} <= build_args
        elif tool[1:] == ["run"]:
            assert rest[0] == image
            published = [spec.split(":")[-1] for spec in options.get("-p", [])]
            environment = dict(spec.split("=", 1) for spec in options.get("-e", []))
            if rest[1:2] == ["acpc-match"]:
                args = match_parser().parse_args(rest[2:])
                assert args.host == "0.0.0.0" and published == [str(args.metrics_port)]
                assert environment == {"METRICS_PORT": str(args.metrics_port)}
            elif rest[1:2] == ["acpc-dealer"]:
                dealer = dealer_parse_args(rest[2:])
                assert dealer.host == "0.0.0.0" and published == [f"{dealer.ports[0]}-{dealer.ports[-1]}"]
            else:
                assert rest[1:] == [], rest
        else:  # docker compose, podman compose, podman-compose
            assert tool in (["docker", "compose"], ["podman", "compose"], ["podman-compose"]), words
            assert options["-f"] == ["docker/compose.yaml"] and set(options.get("--profile", [])) <= profiles
            subcommand, *arguments = rest
            if subcommand == "up":
                named = [word for word in arguments if not word.startswith("-")]
                assert set(named) <= _profile_services(services, tuple(options.get("--profile", []))), named
            elif subcommand == "cp":
                service, path = arguments[0].split(":")
                assert service in services and path.startswith("/home/arena/"), arguments
            else:
                assert subcommand in ("config", "down"), subcommand
    # Each way of running the stack is shown, and the build arguments and the variables that the
    # image and the compose file read are described.
    assert {tuple(words[:2]) for words in commands} >= {
        ("docker", "build"),
        ("docker", "compose"),
        ("podman", "compose"),
    }
    assert any(words[0] == "podman-compose" for words in commands)
    described = set(re.findall(r"^\| `(\w+)` \|", (DOCKER / "README.md").read_text(), re.MULTILINE))
    read = set(re.findall(r"os\.environ\.get\('(\w+)'\)", dockerfile)) | interpolated
    assert build_args | read <= described, (build_args | read) - described
