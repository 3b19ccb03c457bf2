"""The TREC reader reads a block at a time: every block size gives the same rows, and errors
name the same line, whether the file is split into blocks or not (and gzipped or not)."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise.inputs.trec import read_trec

RUN_TEXT = (
    b"q1 Q0 d1 1 3 t\r\n"
    b"\n"
    b"  q1\tQ0\t\td2  2 2.5 t extra fields\n"
    b"q1 Q0 caf\xc3\xa9\xc2\xa0x 3 1e0 t\n"
    b" \t \n"
    b"q2 Q0 " + b"d" * 100 + b" 1 -1 t\n"
    b"q2 Q0 d3 2 inf t"  # no line end
)
EXPECTED = pl.DataFrame({
    "query_id": ["q1", "q1", "q1", "q2", "q2"],
    "doc_id": ["d1", "d2", "caf\u00e9\u00a0x", "d" * 100, "d3"],
    "score": [3.0, 2.5, 1.0, -1.0, float("inf")],
})


@pytest.mark.parametrize("block_size", [1, 2, 7, 16, 50, 1 << 20])
@pytest.mark.parametrize("gz", [False, True])
def test_every_block_size_reads_the_same_rows(tmp_path: Path, block_size: int, gz: bool) -> None:
    path = tmp_path / "run.trec"
    path.write_bytes(gzip.compress(RUN_TEXT) if gz else RUN_TEXT)
    assert_frame_equal(read_trec(path, "run", rw.Columns(), block_size=block_size), EXPECTED)


@pytest.mark.parametrize("block_size", [3, 20, 1 << 20])
def test_single_spaced_and_irregular_blocks_agree(tmp_path: Path, block_size: int) -> None:
    # a block in the usual layout (one space between fields) is split plainly, another by the
    # regular expression: the same rows either way
    plain = b"".join(b"q%d Q0 d%d 1 %d t\n" % (i % 3, i, i) for i in range(40))
    path = tmp_path / "run.trec"
    path.write_bytes(plain + plain.replace(b" ", b" \t ").replace(b"q", b"x"))
    got = read_trec(path, "run", rw.Columns(), block_size=block_size)
    assert got.height == 80
    assert got["doc_id"].head(40).to_list() == [f"d{i}" for i in range(40)]
    assert got["query_id"].tail(40).to_list() == [f"x{i % 3}" for i in range(40)]


@pytest.mark.parametrize("irregular", [
    b"q1 Q0 d1 1 3 t \n",  # a trailing space
    b" q1 Q0 d1 1 3 t\n",  # a leading one (the first line of the block or not)
    b"q1  Q0 d1 1 3 t\n",  # two between fields
    b"q1 Q0 d1 1 3 t \r\n",  # a space before the carriage return
    b"q1\tQ0 d1 1 3 t\n",  # a tab
])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_one_irregular_line_in_a_plain_file_reads_as_the_plain_one(tmp_path: Path, irregular: bytes, where: str) -> None:
    # each layout that a plain split on one space would misread, alone in an otherwise plain block
    plain = [b"q1 Q0 d%d %d %d t\n" % (i, i, 10 - i) for i in range(2, 6)]
    lines = {"first": [irregular, *plain], "middle": [*plain[:2], irregular, *plain[2:]],
             "last": [*plain, irregular.rstrip(b"\n")]}[where]
    path = tmp_path / "run.trec"
    path.write_bytes(b"".join(lines))
    got = read_trec(path, "run", rw.Columns())
    assert got.height == 5 and "d1" in got["doc_id"].to_list()
    assert got.filter(pl.col("doc_id") == "d1")["score"].to_list() == [3.0]


@pytest.mark.parametrize("block_size", [5, 1 << 20])
def test_errors_name_the_line_across_blocks(tmp_path: Path, block_size: int) -> None:
    path = tmp_path / "run.trec"
    good = b"q1 Q0 d1 1 3 t\n" * 30
    path.write_bytes(good + b"q1 Q0 d2 2 high t\n" + good)
    with pytest.raises(rw.InputReadError, match=r"line 31: the score \(5th\) field .* found 'high'"):
        read_trec(path, "run", rw.Columns(), block_size=block_size)
    path.write_bytes(good + b"q1 Q0 caf\xe9 2 2 t\n")
    with pytest.raises(rw.InputReadError, match=r"line 31: not valid UTF-8"):
        read_trec(path, "run", rw.Columns(), block_size=block_size)
    # a short line wins over an earlier bad value, as when the file is read whole
    path.write_bytes(b"q1 Q0 d2 2 high t\n" + good + b"q1 Q0 d3\n")
    with pytest.raises(rw.InputReadError, match=r"line 32 is 'q1 Q0 d3'"):
        read_trec(path, "run", rw.Columns(), block_size=block_size)


@pytest.mark.parametrize("block_size", [5, 1 << 20])
def test_swapped_files_are_recognised_across_blocks(tmp_path: Path, block_size: int) -> None:
    qrels = tmp_path / "qrels.trec"
    qrels.write_bytes(b"q1 0 d1 1\n" * 20)
    with pytest.raises(rw.InputReadError, match="looks like TREC qrels"):
        read_trec(qrels, "run", rw.Columns(), block_size=block_size)
    run = tmp_path / "run.trec"
    run.write_bytes(b"q1 Q0 d1 1 3 t\n" * 20)
    with pytest.raises(rw.InputReadError, match="looks like a TREC run"):
        read_trec(run, "qrels", rw.Columns(), block_size=block_size)


def test_a_csv_file_read_as_trec_says_it_looks_like_csv(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_text("q1,d1,3\nq1,d2,2\n")
    with pytest.raises(rw.InputReadError, match="looks like CSV"):
        read_trec(path, "run", rw.Columns())


def test_a_file_of_one_block_is_read_without_pyarrow(tmp_path: Path) -> None:
    """A file that fits in one block keeps its string views: copying them would import pyarrow,
    a third of a command's start on a TREC-sized file (more blocks are copied: above)."""
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\n")
    code = (
        "import sys; from pathlib import Path; import rankwise as rw; "
        "from rankwise.inputs.trec import read_trec; "
        f"read_trec(Path({str(path)!r}), 'run', rw.Columns()); print('pyarrow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
