"""Files the project writes and reads from outside: whole or not at all.

``write_atomic`` writes a file through a temporary beside it and renames it into
place, so a full disk or a crash leaves the old file (or none), never a half-written
or empty one.
"""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: str | bytes, encoding: str = "utf-8") -> None:
    """Write ``data`` to ``path`` whole or not at all; ``OSError`` (the temporary removed) when
    it cannot be written."""
    payload = data.encode(encoding) if isinstance(data, str) else data
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as file:
            file.write(payload)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
