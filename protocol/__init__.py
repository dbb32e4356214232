"""The poker game exactly as the ACPC server plays it.

- ``game``: game definitions (``load_game``, the shipped ``.game`` files)
- ``cards``: card numbering, parsing and printing
- ``rng`` and ``dealing``: MT19937 and the dealer's seeded deal
- ``state``: the betting state machine of one hand, values at the end
- ``wire``: ``MATCHSTATE`` messages, responses, log lines
- ``views``: what one seat sees of a state (an agent's view, a range of views)
- ``rank_rules``: hand ranks from the rules; ``rank_lookup``: one hand's rank by table
  lookups, without numpy; ``evaluator``: ranks batched over numpy arrays (and the names
  of both others)
- ``equity`` and ``preflop_table``: a hand's equity against random hands, all-in expected values
- ``disk_cache``: tables kept on disk, named by the source that computes them
- ``files``: bounded reads of the files a command is given; ``acpc_log``: ACPC logs a line at a
  time; ``match_log``: a match's log read back checked
- ``native``: ``state``, ``wire``, ``cards``, ``rank_lookup`` and ``dealing`` (and the dealer's blocking
  loop) compiled with mypyc (``make install``, ``native_build``), or not
- ``commands``: how the ``acpc-*`` commands end: exit statuses, Ctrl-C and SIGTERM
- ``errors``: ``ProtocolError``, what malformed input raises

Import the names from their modules (``from acpc_arena.protocol.game import load_game``):
this package itself imports only ``native``, so a command's start pays for what it uses.
"""

from acpc_arena.protocol.native import use_sources

use_sources()  # first: whether state, wire, ... (native.COMPILED) load compiled or from their sources
