"""The benchmark server (``acpc-bm-server``), its users' command (``acpc-bm-user``) and its client (``acpc-bm``):
the ACPC ``bm_server``'s config and line protocol (``protocol.py`` describes the lines), matches played by the
arena's runner, jobs kept in SQLite."""
