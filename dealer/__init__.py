"""The match server: an async drop-in for the ACPC ``dealer`` (``acpc-dealer``), its seats,
logs, console and metrics. The evaluation harness built on it lives in ``arena``."""
