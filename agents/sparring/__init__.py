"""The sparring suites: independent heuristic opponents for heads-up limit and no-limit hold'em (see ``limit``,
``nolimit``; the docs page ``docs/agents/sparring.md``)."""
