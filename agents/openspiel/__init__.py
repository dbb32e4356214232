"""OpenSpiel both ways (``pip install 'acpc-arena[openspiel]'``): an OpenSpiel policy or bot played as an
agent of this arena, and an agent with ``policy`` as an OpenSpiel policy on the matching ``universal_poker``
game."""
