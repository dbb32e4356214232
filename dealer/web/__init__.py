"""The arena in a browser: live tables, a hand replayer for ACPC logs, results pages and a human seat.

``acpc-web`` (``cli``) serves a run's folders; ``acpc-match --web PORT`` serves the
same pages with the run's tables live. ``http`` is the small HTTP/1.1 server (trio
and h11), ``tables`` turns states into what the page draws, ``live`` follows the
matches being played, ``human`` seats a person through the dealer, ``app`` routes
requests, and ``static/`` is the page itself (no build step).
"""
