"""The evaluation harness around the match server: seeded duplicate runs of agents
(``runner``, ``acpc-match``), their reports with mbb/h and intervals (``report``,
``acpc-report``) and plots. The server itself (``acpc-dealer``) is the parent package."""
