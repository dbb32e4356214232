"""The evaluation harness around the match server: seeded duplicate runs of agents
(``runner``, ``pipeline``; ``acpc-match``, and ``api.play`` for the same from Python), their reports
with mbb/h and intervals (``log_tally``, ``estimates``, ``allin``, ``reports``, ``tables``,
``acpc-report``), tournaments and plots. The server itself (``acpc-dealer``) is ``dealer.server``;
the pages (``dealer.web``) use this package, never the other way round."""
