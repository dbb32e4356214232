"""The PettingZoo and Gymnasium environments (``dealer.envs``): their frameworks' own checkers, the
hands they play against the dealer's log of the same hands, and one clear error for each bad input.

The dealer's side: every betting of the environment's log replayed by agents in the arena's
in-process driver (``play_agents``, the engine's other driver), which deals, rotates the seats,
values the hands and writes the log itself; the two logs must be equal line for line.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import trio
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from acpc_arena.agents.base import Agent
from acpc_arena.dealer.arena.in_process import AgentChannel, play_agents
from acpc_arena.dealer.envs import EpisodeOverError, IllegalActionError, PokerAECEnv, PokerGymEnv
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.match import MatchConfig
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import (
    MatchState,
    format_betting,
    parse_action,
    parse_log_line,
    parse_match_state,
    parse_score_line,
)

TWO_PLAYER = ["holdem.limit.2p.reverse_blinds", "holdem.nolimit.2p.reverse_blinds", "kuhn", "leduc"]
THREE_PLAYER = ["holdem.limit.3p", "holdem.nolimit.3p", "kuhn.limit.3p"]
ACTION = re.compile(r"f|c|r\d*")


class ListLog:
    """A log sink keeping the lines (``engine.LogSink``)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.next_hand = 0
        self.last_record = ""

    def write_line(self, line: str) -> None:
        self.lines.append(line)


def random_aec_hands(game: str, hands: int, seed: int) -> list[str]:
    """The log of ``hands`` hands of the AEC environment seeded ``seed``, every action drawn uniformly
    among the legal ones by a generator of the same seed."""
    log = ListLog()
    env = PokerAECEnv(game, hands=hands, log=log)
    draw = np.random.default_rng(seed)
    for hand in range(hands):
        env.reset(seed=seed if hand == 0 else None)
        for _ in env.agent_iter():
            observation, _, terminated, _, _ = env.last()
            if terminated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[draw.integers(len(legal))]))
    return log.lines


class Replay(Agent):
    """Plays the betting of each hand of a log, action by action."""

    def __init__(self, game: Game, bettings: dict[int, str]) -> None:
        super().__init__(game)
        self.bettings = bettings

    def act(self, view: MatchState) -> Action:
        state = view.state
        match = ACTION.match(self.bettings[state.hand_id], len(format_betting(state)))
        assert match is not None
        return parse_action(match.group(), self.game)


def dealer_log(game_name: str, hands: int, seed: int, lines: list[str], names: tuple[str, ...]) -> list[str]:
    """The log the dealer writes for the match of ``seed`` whose seats replay the bettings of ``lines``."""
    game = load_game(game_name)
    hands_played = [parse_log_line(line, game).state for line in state_lines(lines)]
    bettings = {state.hand_id: format_betting(state) for state in hands_played}
    log = ListLog()
    config = MatchConfig("t", game, game_name, hands, seed, names)
    channels = [AgentChannel(seat, Replay(game, bettings), io.StringIO()) for seat in range(game.num_players)]
    result = trio.run(play_agents, MatchEngine(config, None, log), channels)
    assert result.ok and result.invalid_actions == [0] * game.num_players
    return log.lines


def state_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("STATE:")]


# api_test recommends a plain array observation; an action mask needs a Dict (as PettingZoo's own card games have).
DICT_OBSERVATION = pytest.mark.filterwarnings(
    "ignore:Observation is not a NumPy array", "ignore:Observation space for each agent probably should be"
)


@DICT_OBSERVATION
@pytest.mark.parametrize("game", TWO_PLAYER + THREE_PLAYER)
def test_the_aec_environment_passes_pettingzoos_api_test(game: str) -> None:
    api_test(PokerAECEnv(game), num_cycles=100)
    seed_test(lambda: PokerAECEnv(game), num_cycles=20)


@DICT_OBSERVATION
def test_the_aec_environment_passes_with_the_line_in_the_observation() -> None:
    env = PokerAECEnv("holdem.nolimit.3p", line_in_observation=True)
    api_test(env, num_cycles=100)
    env.reset(seed=3)
    observation = env.observe(env.agent_selection)
    assert observation["match_state"] == env.infos[env.agent_selection]["match_state"]
    assert observation["match_state"].startswith("MATCHSTATE:2:0::||")  # the third position acts first


# check_env's notes on rendering: a text render has no frame rate, and an environment made without
# gymnasium.make has no spec through which to build it in the other render mode.
@pytest.mark.filterwarnings("ignore:.*No render fps was declared", "ignore:.*Not able to test alternative render")
@pytest.mark.parametrize(
    ("game", "opponents"),
    [
        ("holdem.limit.2p.reverse_blinds", ["call"]),
        ("holdem.nolimit.2p.reverse_blinds", ["random"]),
        ("kuhn", ["cfr"]),
        ("leduc", ["cfr"]),
        ("holdem.limit.3p", ["random", "call"]),
    ],
)
def test_the_gymnasium_environment_passes_check_env(game: str, opponents: list[str]) -> None:
    check_env(PokerGymEnv(game, opponents), skip_render_check=True)
    check_env(PokerGymEnv(game, opponents, seat=len(opponents), line_in_observation=True, render_mode="ansi"))


def check_hands_equal_the_dealers(game: str, hands: int, seed: int) -> None:
    lines = random_aec_hands(game, hands, seed)
    assert len(state_lines(lines)) == hands and lines[-1].startswith("SCORE:")
    names = tuple(f"player_{seat}" for seat in range(load_game(game).num_players))
    assert dealer_log(game, hands, seed, lines, names) == lines


@pytest.mark.parametrize("game", [*TWO_PLAYER, "holdem.nolimit.3p"])
def test_random_hands_equal_the_dealers_log_of_the_same_seed(game: str) -> None:
    check_hands_equal_the_dealers(game, 1000, 17)


@pytest.mark.slow
@pytest.mark.parametrize("game", TWO_PLAYER + THREE_PLAYER)
def test_ten_thousand_random_hands_equal_the_dealers_log(game: str) -> None:
    check_hands_equal_the_dealers(game, 10_000, 2024)


def test_the_gymnasium_environments_hands_and_rewards_are_the_dealers() -> None:
    """The learner's rewards (its episodes' and the hands it had nothing to decide in) sum to its total in
    the dealer's log of the same hands; the opponent is a seeded ``random`` agent."""
    log = ListLog()
    hands = 600
    env = PokerGymEnv("holdem.nolimit.2p.reverse_blinds", ["random"], seat=1, hands=hands, log=log, rewards="mbb")
    draw = np.random.default_rng(5)
    total = 0.0
    observation, info = env.reset(seed=9)
    while True:
        total += info["unplayed_reward"]
        terminated = False
        while not terminated:
            legal = np.flatnonzero(observation["action_mask"])
            observation, reward, terminated, _, info = env.step(int(legal[draw.integers(len(legal))]))
            total += reward
        try:
            observation, info = env.reset()
        except EpisodeOverError:
            break
    dealer = dealer_log("holdem.nolimit.2p.reverse_blinds", hands, 9, log.lines, ("player_0", "learner"))
    assert dealer == log.lines
    score = parse_score_line(dealer[-1], 2)
    assert total == pytest.approx(score.totals[1] * 1000 / 100)


def test_a_seed_replays_the_same_hands_against_spec_built_agents() -> None:
    def episode(env: PokerGymEnv, seed: int | None) -> list[str]:
        _, info = env.reset(seed=seed)
        lines = [info["match_state"]]
        terminated = False
        while not terminated:
            _, _, terminated, _, info = env.step(1)
            lines.append(info["match_state"])
        return lines

    env = PokerGymEnv("leduc", ["random"])
    first = [episode(env, 4)] + [episode(env, None) for _ in range(20)]
    again = [episode(env, 4)] + [episode(env, None) for _ in range(20)]
    assert first == again


def test_no_limit_raises_are_pot_fractions_clamped_to_the_legal_bounds() -> None:
    """Reverse-blinds no-limit hold'em, the small blind first: 50 in, 100 to call; the pot once called is
    200, so a fraction f raises to 100 + 200 f, at least 200 (the minimum raise-to), all-in 20000."""
    log = ListLog()
    env = PokerAECEnv("holdem.nolimit.2p.reverse_blinds", raise_fractions=(0.1, 0.5, 1, 2, 150), log=log, hands=6)
    sizes = []
    for index in range(2, 8):
        env.reset(seed=1 if index == 2 else None)
        env.step(index)
        sizes.append(str(env.infos[env.agent_selection]["match_state"]).split(":")[3])
    assert sizes == ["r200", "r200", "r300", "r500", "r20000", "r20000"]
    assert env.action_space("player_0").n == 8


def test_the_mask_and_the_array_say_what_the_line_says() -> None:
    env = PokerAECEnv("kuhn")
    env.reset(seed=0)
    agent = env.agent_selection
    line = str(env.infos[agent]["match_state"])  # MATCHSTATE:0:0::Ks| (the first player, nothing owed: an ante)
    observation = env.observe(agent)
    assert observation["action_mask"].tolist() == [0, 1, 1]
    game = load_game("kuhn")
    own = line.split(":")[4].split("|")[0]
    deck = [f"{rank}{suit}" for rank, suit in (("23456789TJQKA"[c // 4], "cdhs"[c % 4]) for c in game.deck)]
    array = observation["observation"]
    holes_at = 2 * 2 + 1
    assert array[holes_at + deck.index(own)] == 1 and array[holes_at : holes_at + 2 * len(deck)].sum() == 1
    env.step(2)  # raise: the other player owes one chip and may fold
    assert env.observe(env.agent_selection)["action_mask"].tolist() == [1, 1, 0]


def test_rewards_in_chips_and_in_mbb() -> None:
    """Limit hold'em, reverse blinds (10 and 5): the small blind folds at once and loses 5 chips, 500 mbb."""
    for rewards, expected in (("chips", 5.0), ("mbb", 500.0)):
        env = PokerAECEnv("holdem.limit.2p.reverse_blinds", rewards=rewards)  # type: ignore[arg-type]
        env.reset(seed=1)
        folder = env.agent_selection
        env.step(0)
        assert env.rewards == {folder: -expected, ({"player_0", "player_1"} - {folder}).pop(): expected}


def test_an_illegal_action_is_one_clear_error_or_the_dealers_call() -> None:
    strict = PokerAECEnv("kuhn", illegal_actions="error")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"^fold is illegal at MATCHSTATE:0:0::\w\w\|: nothing is owed"):
        strict.step(0)
    with pytest.raises(IllegalActionError, match=r"^no action 3: the actions are 0 to 2 \(0 fold, 1 call, 2 raise\)$"):
        strict.step(3)
    gym_strict = PokerGymEnv("kuhn", ["call"], illegal_actions="error")
    gym_strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"^fold is illegal at MATCHSTATE"):
        gym_strict.step(0)
    log = ListLog()
    fixing = PokerAECEnv("kuhn", log=log, hands=1)
    fixing.reset(seed=0)
    first = fixing.agent_selection
    fixing.step(0)  # played as a call, and counted
    assert fixing.infos[first]["invalid_actions"] == 1
    fixing.step(1)
    assert log.lines[0].split(":")[2] == "cc"


def test_stepping_or_observing_after_the_end_is_one_clear_error() -> None:
    env = PokerAECEnv("kuhn", hands=1)
    with pytest.raises(EpisodeOverError, match=r"^no hand has been dealt: call reset\(\) first$"):
        env.observe("player_0")
    env.reset(seed=0)
    env.step(1)
    env.step(1)
    for agent in list(env.agents):
        env.step(None)
        with pytest.raises(EpisodeOverError, match=f"^{agent} is not in a hand: the hand is over"):
            env.observe(agent)
    with pytest.raises(EpisodeOverError, match=r"^the hand is over and every agent has left it"):
        env.step(1)
    with pytest.raises(EpisodeOverError, match=r"^the match's 1 hands are played: reset\(seed=\.\.\.\)"):
        env.reset()
    single = PokerGymEnv("kuhn", ["call"])
    single.reset(seed=0)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = single.step(1)
    with pytest.raises(EpisodeOverError, match=r"^the hand is over: reset\(\) deals the next$"):
        single.step(1)


def test_bad_games_and_options_are_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.game"
    bad.write_text("GAMEDEF\nlimit\nnumPlayers = 11\nEND GAMEDEF\n")
    for make in (lambda: PokerAECEnv(str(bad)), lambda: PokerGymEnv(str(bad), ["call"])):
        with pytest.raises(ProtocolError) as caught:
            make()
        assert "\n" not in str(caught.value) and "bad.game" in str(caught.value)
    with pytest.raises(ValueError, match=r"^kuhn has 2 seats: give 1 opponents, not 2$"):
        PokerGymEnv("kuhn", ["call", "call"])
    with pytest.raises(ValueError, match=r"^raise_fractions are for no-limit games"):
        PokerAECEnv("leduc", raise_fractions=(1.0,))
    with pytest.raises(ValueError, match=r"^illegal_actions must be 'error' or 'fix', not 'skip'$"):
        PokerAECEnv("leduc", illegal_actions="skip")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^render_mode must be 'ansi' or 'human', not 'rgb_array'$"):
        PokerGymEnv("leduc", render_mode="rgb_array")


def test_render_shows_the_hand_as_the_log_does() -> None:
    env = PokerAECEnv("leduc", render_mode="ansi")
    env.reset(seed=1)
    env.step(2)
    assert env.render() == "STATE:0:r:Kh|Ks"


def test_without_the_gym_extra_the_import_says_what_to_install() -> None:
    code = "import sys; sys.modules['pettingzoo'] = None; import acpc_arena.dealer.envs"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stderr.splitlines()[-1] == (
        "ModuleNotFoundError: acpc_arena.dealer.envs needs pettingzoo: pip install 'acpc-arena[gym]'"
    )


def test_opponents_may_be_plugin_agents(tmp_path: Path) -> None:
    plugin = tmp_path / "folder_bot.py"
    plugin.write_text(
        textwrap.dedent(
            """
            from acpc_arena.agents.base import Agent
            from acpc_arena.protocol.state import FOLD_ACTION, CALL_ACTION

            class Folder(Agent):
                def act(self, view):
                    return FOLD_ACTION if view.state.legal_actions().can_fold else CALL_ACTION
            """
        )
    )
    env = PokerGymEnv("leduc", [f"{plugin}:Folder"])
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(2)  # the learner raises, the folder folds
    assert terminated and reward > 0


def test_the_array_encodes_what_the_line_says() -> None:
    """Every observation of 100 random no-limit hands of three players, against the line the client parser
    reads: the viewer, the cards it sees, the board, the chips in the pot, the folds, each action's kind."""
    game = load_game("holdem.nolimit.3p")
    env = PokerAECEnv(game)
    deck = {card: i for i, card in enumerate(game.deck)}
    cards, n = len(game.deck), game.num_players
    draw = np.random.default_rng(1)
    for hand in range(100):
        env.reset(seed=8 if hand == 0 else None)
        for _ in env.agent_iter():
            observation, _, terminated, _, info = env.last()
            view = parse_match_state(str(info["match_state"]), game)
            array, state = observation["observation"], view.state
            holes_at = 2 * n + game.num_rounds
            seen = [holes_at + p * cards + deck[c] for p, hole in enumerate(state.hole_cards) for c in hole]
            board_at = holes_at + n * cards
            seen += [board_at + deck[c] for c in state.board_cards]
            assert array[view.viewer] == 1 and sorted(
                np.flatnonzero(array[holes_at : board_at + cards]) + holes_at
            ) == sorted(seen)
            spent_at = board_at + cards
            assert array[spent_at : spent_at + n] * max(game.stack) == pytest.approx(state.spent)
            assert array[spent_at + n : spent_at + 2 * n].tolist() == state.folded
            kinds = [int(a.kind) for actions in state.actions for a in actions]
            betting = array[spent_at + 2 * n :].reshape(-1, 4)
            assert [int(np.argmax(slot[:3])) for slot in betting if slot[:3].any()] == kinds
            if terminated:
                env.step(None)
            else:
                legal = np.flatnonzero(observation["action_mask"])
                env.step(int(legal[draw.integers(len(legal))]))
