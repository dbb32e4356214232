"""Passwords stored as argon2id hashes (``argon2-cffi``), checked the same way whether the user exists or not,
and failed logons counted per address (refused past a bound) and per name (answered ever later: ``LogonLimiter``)."""

from __future__ import annotations

import functools
import secrets
import time
from collections import OrderedDict, deque

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_HASHER = PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """Checked against when the user does not exist, so that an unknown name costs what a wrong password costs.
    Made at the first check of any name (that check costs one hash more, whoever it is for), not at start."""
    return _HASHER.hash(secrets.token_hex(16))


def hash_password(password: str) -> str:
    """The argon2id hash of ``password`` (with its own salt and parameters), as stored."""
    return _HASHER.hash(password)


def check_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` hashes; ``stored`` None (no such user) takes the same time and
    says no. Blocking (tens of milliseconds): call it in a thread."""
    dummy = _dummy_hash()
    try:
        _HASHER.verify(stored or dummy, password)
    except (VerificationError, InvalidHashError):
        return False
    return stored is not None


MAX_BACKOFF = 32
"""The most a failure's answer is delayed, in multiples of the base delay (``LogonLimiter.delay``)."""


class LogonLimiter:
    """Failed logons counted in a window of ``window`` seconds, per address and per name.

    An address with ``failures`` failures in the window is refused without a password check until the oldest
    leaves it, whatever the name: one address guesses at most ``failures`` passwords a window. A name is never
    refused for its failures (another address's guesses would lock its user out); instead the answer to each
    failure for it waits longer, doubling every ``failures`` failures in the window (``delay``), which slows
    guesses spread over many addresses. A right password from an address that is not refused always logs on.

    It remembers at most ``keys`` addresses and names (the oldest forgotten first), so a flood of names
    cannot grow it without bound.
    """

    def __init__(self, failures: int = 5, window: float = 60.0, keys: int = 10_000) -> None:
        self.failures = failures
        self.window = window
        self.keys = keys
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def _recent(self, key: str, now: float) -> deque[float]:
        stamps = self._seen.get(key)
        if stamps is None:
            return deque()
        while stamps and stamps[0] <= now - self.window:
            stamps.popleft()
        return stamps

    def allowed(self, address: str, name: str) -> bool:
        """Whether a logon from ``address`` may be checked now (``name`` is not counted: see the class)."""
        return len(self._recent(f"a:{address}", time.monotonic())) < self.failures

    def delay(self, name: str, base: float) -> float:
        """Seconds to wait before answering a failed logon for ``name``: ``base``, doubled for every
        ``failures`` failures for it in the window, at most ``MAX_BACKOFF`` times ``base``."""
        doublings = len(self._recent(f"n:{name}", time.monotonic())) // self.failures
        return base * min(2**doublings, MAX_BACKOFF)

    def failed(self, address: str, name: str) -> None:
        now = time.monotonic()
        for key in (f"a:{address}", f"n:{name}"):
            stamps = self._recent(key, now)
            stamps.append(now)
            self._seen[key] = stamps
            self._seen.move_to_end(key)
        while len(self._seen) > self.keys:
            self._seen.popitem(last=False)
