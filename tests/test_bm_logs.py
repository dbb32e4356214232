"""A run's log fetched with ``logs J.I`` as the C ``bm_run_matches`` reads it: every byte arrives, though the
C client drops a line whose rest is late (``net.c``'s zero-timeout ``getLine``)."""

from __future__ import annotations

import threading
from pathlib import Path

from acpc_arena.dealer.benchmark_server.wholelines import pieces
from tests.helpers.bm import Line, query, read_as_bm_run_matches, start_server, write_config


def test_pieces_are_whole_lines_no_longer_than_asked_and_a_longer_line_goes_alone() -> None:
    data = b"ab\ncd\nefghij\nk\nlm"
    assert list(pieces(data, 6)) == [b"ab\ncd\n", b"efghij\n", b"k\nlm"]
    assert list(pieces(data, 100)) == [data]
    assert list(pieces(b"", 4)) == []


def test_a_long_log_read_as_bm_run_matches_reads_it_arrives_whole_to_every_reader_at_once(tmp_path: Path) -> None:
    write_config(tmp_path, hands=3000)
    _, port = start_server(tmp_path)
    request = Line(port)
    request.send("neil test run 2pl ./unused.sh 1 long 9 random random\n")
    assert request.read_until("Matches finished")[-1] == "Matches finished\n"
    request.close()
    ((log,),) = query(tmp_path / "bm.sqlite3", "SELECT log FROM matches")
    expected = Path(log).read_bytes()
    assert len(expected) > 150_000  # many of the C client's 4096-byte reads, and the socket's buffers

    received: list[bytes] = []

    def fetch() -> None:
        client = Line(port)
        client.send("neil test logs 1.0\n")
        received.append(read_as_bm_run_matches(client.sock))
        client.close()

    readers = [threading.Thread(target=fetch) for _ in range(6)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(120)
    assert len(received) == 6
    for data in received:
        assert data == expected
