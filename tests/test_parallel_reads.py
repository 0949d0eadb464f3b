"""What loading spreads over threads, or stores, it hands back exactly: the files of
`read_files` (queries/functions/read_files.sql), each once with its position, and the
rows of a materialised relation (`load.materialise`), each once, whatever the sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mur_trace.load import connect, create_macros, materialise


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 5, 7, 8, 9, 13])
def test_read_files_reads_each_file_once_at_its_position(tmp_path: Path, count: int) -> None:
    paths = []
    for i in range(count):
        path = tmp_path / f"f{i}.txt"
        path.write_text(f"file {i}\n")
        paths.append(str(path))
    con = connect()
    create_macros(con)
    con.execute("SET VARIABLE files = $p::VARCHAR[]", {"p": paths})
    rows = con.sql(
        "SELECT file_index, filename, decode(content) FROM read_files(getvariable('files'))"
    ).fetchall()
    # file i holds "file i": its index, its name and its bytes must agree
    assert sorted(rows) == [(i, paths[i], f"file {i}\n") for i in range(count)]


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("rows", [0, 1, 4095, 4096, 4097, 10_001])
def test_a_materialised_relation_serves_every_row_once(threads: int, rows: int) -> None:
    con = connect()
    con.execute(f"SET threads = {threads}")
    materialise(con, "numbers", f"SELECT i, i * 2 AS twice FROM range({rows}) AS r(i)")
    ((count, distinct, total, low, high),) = con.sql(
        "SELECT count(*), count(DISTINCT i), coalesce(sum(twice), 0), min(i), max(i) FROM numbers"
    ).fetchall()
    # 0 .. rows-1, each once: the sum of twice is rows * (rows - 1)
    assert (count, distinct, total) == (rows, rows, rows * (rows - 1))
    assert (low, high) == ((0, rows - 1) if rows else (None, None))
