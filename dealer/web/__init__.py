"""The arena in a browser: live tables, a hand replayer for ACPC logs, results pages and a human seat.

``acpc-web`` (``cli``) serves a run's folders; ``acpc-match --web PORT`` and
``acpc-dealer --web PORT`` serve the same pages with the run's tables live, from a
process of their own (``side``, started by ``dealer.pages``) that the matches feed
without waiting (``dealer.feed``).
``http`` is the small HTTP/1.1 server (trio and h11) with its bounds and its Host and
Origin checks, ``tables`` turns states into what the page draws, ``live`` keeps the
boards of the matches being played, ``logs`` reads the replayer's logs within a
budget, ``human`` seats a person through the dealer, ``app`` routes requests, and
``static/`` is the page itself (no build step).
"""
