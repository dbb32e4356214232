"""OpenSpiel both ways (``pip install 'acpc-arena[openspiel]'``): an OpenSpiel policy or bot played as an
agent of this arena, and an agent with ``policy`` as an OpenSpiel policy on the matching ``universal_poker``
game.

- ``games``: an ACPC game as ``universal_poker`` (its betting abstractions), and the cards' numbering;
- ``states``: a player's view and ``universal_poker``'s information states, states and action ids, each as the
  other, exactly;
- ``agent``: ``OpenSpielAgent``, an OpenSpiel policy (a pickled file, a ``Policy``, a callable) or bot as an agent
  (the spec ``acpc_arena.agents.openspiel.agent:OpenSpielAgent``);
- ``arena_policy``: ``ArenaPolicy``, an agent as an OpenSpiel ``Policy``, for OpenSpiel's ``exploitability``,
  ``best_response`` and ``expected_game_score``.

The guide is ``docs/guides/openspiel.md``.
"""
