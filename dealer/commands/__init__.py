"""The command lines of the match server and the arena, one module a command (``acpc-dealer`` is
``dealer``, ``acpc-bm-server`` is ``bm_server``): each parses its options, calls the library and prints."""
