"""``OpenSpielAgent``: an OpenSpiel policy or bot playing in this arena.

    acpc-match --game leduc --a acpc_arena.agents.openspiel.agent:OpenSpielAgent \\
        --a-args '--policy leduc_cfr.pkl' --b cfr ...

``--policy`` names the policy: a pickle file of an ``open_spiel.python.policy.Policy`` (a ``TabularPolicy``, or any
picklable policy: its ``game`` is checked) or of a table ``{information state: [(action, probability), ...]}`` (a
``TabularPolicy.to_dict()`` or a ``pyspiel.TabularPolicy.policy_table()``); or ``module:name`` or
``file.py:name`` of a ``Policy`` or of a callable policy (an OpenSpiel state to ``{action: probability}``).
``--bot`` names, the same way, a ``pyspiel.Bot`` or a function ``(game, player)`` making one; the bot is shown
each decision's state (``step``) and must give its policy (``provides_policy()``); ``OpenSpielBotAgent`` plays
a bot that does not, as an agent without ``policy`` (no LBR, no AIVAT). In Python the constructor takes the
object itself too (``OpenSpielAgent(game, policy=tabular_policy)``). The game is ``universal_poker`` of the
match's game, with the betting abstraction of the policy's game, else ``--betting`` (``agents.openspiel.games``).

A table is read by the view's information-state string (``states.information_state``); a policy or a bot is shown
a ``universal_poker`` state of the view (``states.spiel_state``). ``policy`` gives the distribution ``act`` draws
from (a bot's, where it gives one), so LBR and AIVAT run on the agent.
"""

from __future__ import annotations

import os
import pickle
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import pyspiel
from open_spiel.python import policy as spiel_policy

from acpc_arena.agents.base import Agent, Policy, has_policy, merge
from acpc_arena.agents.openspiel.games import check_betting, default_betting, game_betting, spiel_game
from acpc_arena.agents.openspiel.states import arena_action, information_state, spiel_legal_actions, spiel_state
from acpc_arena.agents.options import AgentOptions, options_from
from acpc_arena.agents.registry import AgentSpecError, named_object
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import MatchState

Table = Mapping[str, Any]
"""A tabular policy: information-state string to ``[(action id, probability), ...]`` or ``{id: probability}``."""


@dataclass(frozen=True)
class OpenSpielOptions(AgentOptions):
    policy: Annotated[
        Path | None,
        "the OpenSpiel policy: a pickle file (a Policy, or a table of information states), or module:name or "
        "file.py:name of a Policy or a callable policy",
    ] = None
    bot: Annotated[Path | None, "module:name or file.py:name of a pyspiel.Bot, or of a function (game, player)"] = None
    betting: Annotated[
        Literal["fcpa", "fullgame", "fc"] | None,
        "universal_poker's betting abstraction where the policy has no game (default: fcpa in limit games, "
        "fullgame in no-limit)",
    ] = None


class OpenSpielAgent(Agent):
    name = "openspiel"
    Options = OpenSpielOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        objects = {key: options.pop(key) for key in ("policy", "bot") if _is_object(options.get(key))}
        super().__init__(game, seed)
        given = options_from(OpenSpielOptions, options)
        if ("policy" in objects or given.policy is not None) == ("bot" in objects or given.bot is not None):
            raise ValueError("an OpenSpiel agent plays one policy (--policy) or one bot (--bot): give one of them")
        policy = objects["policy"] if "policy" in objects else _load(given.policy) if given.policy else None
        bot = objects["bot"] if "bot" in objects else _named(str(given.bot)) if given.bot else None
        own_game = getattr(policy, "game", None)
        if own_game is not None and given.betting is not None:
            raise ValueError(f"the policy's game sets the betting abstraction: --betting {given.betting} is not used")
        self.betting = game_betting(own_game, game) if own_game is not None else given.betting or default_betting(game)
        check_betting(game, self.betting)
        self.spiel_game = own_game if own_game is not None else spiel_game(game, self.betting)
        self.table: Table | None = _table(policy) if isinstance(policy, Mapping | spiel_policy.TabularPolicy) else None
        if self.table is not None and self.table and not next(iter(self.table)).startswith("[Round "):
            raise ValueError(f"the table's information states ({next(iter(self.table))!r}) are not universal_poker's")
        self.callable: Callable[..., Any] | None = None
        if self.table is None and policy is not None:
            if not callable(policy):
                raise ValueError(f"--policy is neither a policy, a table nor a callable: {type(policy).__name__}")
            self.callable = policy
        self.bot_source = bot
        self.bots: dict[int, Any] = {}
        self.rng = random.Random(seed)
        if bot is not None and has_policy(type(self)) and not self._bot(0).provides_policy():
            raise ValueError(
                "this OpenSpiel bot gives no policy (provides_policy() is False): play it as OpenSpielBotAgent "
                "(no LBR, no AIVAT)"
            )

    def act(self, view: MatchState) -> Action:
        if self.bot_source is not None:
            state = spiel_state(view, self.spiel_game, self.betting)
            return arena_action(view.state, int(self._bot(view.viewer).step(state)), self.betting)
        actions, weights = zip(*self.policy(view).items(), strict=True)
        return self.rng.choices(actions, weights)[0]

    def policy(self, view: MatchState) -> Policy:
        if self.table is not None:
            probabilities = self._row(view)
        elif self.callable is not None:
            probabilities = self._called(view)
        else:
            pairs = self._bot(view.viewer).get_policy(spiel_state(view, self.spiel_game, self.betting))
            probabilities = {int(action): float(p) for action, p in pairs}
        return self._mapped(view, probabilities)

    def _row(self, view: MatchState) -> dict[int, float]:
        """The table's probabilities at the view's information state."""
        assert self.table is not None
        key = information_state(view)
        row = self.table.get(key)
        if row is None:
            raise ValueError(f"unknown information state {key!r}: the policy has no entry for it")
        return dict(row)

    def _called(self, view: MatchState) -> dict[int, float]:
        """The callable policy's probabilities at a ``universal_poker`` state of the view."""
        assert self.callable is not None
        state = spiel_state(view, self.spiel_game, self.betting)
        try:
            if isinstance(self.callable, spiel_policy.Policy):
                found = self.callable.action_probabilities(state, view.viewer)
            else:
                found = self.callable(state)
        except KeyError as exc:
            raise ValueError(f"unknown information state {state.information_state_string(view.viewer)!r}: "
                             f"the policy has no entry for it ({exc})") from None  # fmt: skip
        return {int(action): float(p) for action, p in dict(found).items()}

    def _mapped(self, view: MatchState, probabilities: Mapping[int, float]) -> Policy:
        """The arena's policy of ``universal_poker``'s probabilities at the view: the legal ids only, as actions,
        renormalised; ValueError where they give the legal actions nothing."""
        state = view.state
        legal = set(spiel_legal_actions(state, self.betting))
        kept = [(action, p) for action, p in probabilities.items() if p > 0 and action in legal]
        total = sum(p for _, p in kept)
        if total <= 0:
            raise ValueError(f"the policy gives no legal action any probability at {information_state(view)!r}")
        return merge([(arena_action(state, action, self.betting), p / total) for action, p in kept])

    def _bot(self, player: int) -> Any:
        """The bot of ``player``'s seat: the one bot given, or one the factory made for the seat."""
        if isinstance(self.bot_source, pyspiel.Bot):
            return self.bot_source
        if player not in self.bots:
            assert callable(self.bot_source)
            self.bots[player] = self.bot_source(self.spiel_game, player)
        return self.bots[player]


class OpenSpielBotAgent(OpenSpielAgent):
    """An OpenSpiel bot that gives no policy (``provides_policy()`` False): it plays, without LBR or AIVAT."""

    name = "openspiel-bot"
    policy = Agent.policy

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        if options.get("policy") is not None:
            raise ValueError("OpenSpielBotAgent plays a bot (--bot): a policy plays as OpenSpielAgent")
        super().__init__(game, seed, **options)


def _is_object(value: object) -> bool:
    """Whether an option's value is an object given in Python, not a file or a name."""
    return value is not None and not isinstance(value, str | os.PathLike)


def _table(policy: Any) -> dict[str, Any]:
    """A TabularPolicy's table (legal actions only), or a table as it is."""
    if not isinstance(policy, spiel_policy.TabularPolicy):
        return dict(policy)
    rows = policy.action_probability_array
    masks = policy.legal_actions_mask
    return {
        key: [(int(a), float(rows[i][a])) for a in range(len(rows[i])) if masks[i][a]]
        for key, i in policy.state_lookup.items()
    }


def _load(path: Path) -> Any:
    """The policy a ``--policy`` names: a pickle file's content, or a ``module:name`` or ``file.py:name``."""
    if not path.is_file():
        if ":" in str(path):
            return _named(str(path))
        raise ValueError(f"--policy {path}: no such file (and not a module:name)")
    try:
        with path.open("rb") as file:
            return pickle.load(file)
    except (pickle.UnpicklingError, EOFError, AttributeError, ModuleNotFoundError, ImportError) as exc:
        raise ValueError(f"--policy {path}: not a pickled policy ({exc})") from None


def _named(name: str) -> Any:
    """The object ``module:name`` or ``file.py:name`` names; ValueError, one line, where there is none."""
    try:
        return named_object(name)
    except AgentSpecError as exc:
        raise ValueError(str(exc).replace("agent ", "", 1)) from None
