"""Outputs and faults: special files, pipes, full disks and interrupts never destroy or lose
anything (issue 20, and the no-lost-data point of issue 13).

Every test writes inside ``tmp_path`` only: named pipes made with ``os.mkfifo`` there,
symbolic links there, and ``/dev/fd/N`` of pipes this test opened. Never a system device.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import resource
import signal
import stat
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

from nbayes import MultinomialNB, load, save
from nbayes._output import WriteError, output_file, stop_signals
from nbayes.cli import main
from nbayes.cli.predict import predict
from nbayes.cli.train import train

FRUIT = (
    "colour,weight,fruit\nred,150,apple\ngreen,170,apple\nyellow,120,banana\nyellow,130,banana\n"
)
EXPECTED = "prediction\napple\napple\nbanana\nbanana\n"


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def fruit(tmp_path):
    """(data, model) in a fresh folder that holds nothing else."""
    data = tmp_path / "fruit.csv"
    data.write_text(FRUIT)
    model = tmp_path / "fruit.nbayes"
    train(str(data), "fruit", str(model))
    return data, model


def listing(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


class Reader(threading.Thread):
    """Reads a named pipe to its end in the background, as a user's `cat fifo` would."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.data = path, None
        self.start()

    def run(self):
        with open(self.path, "rb") as f:
            self.data = f.read()

    def result(self) -> bytes:
        self.join(timeout=30)
        assert not self.is_alive(), "the writer never closed the pipe"
        return self.data


@pytest.fixture
def umask():
    """Set the umask for one test and restore it afterwards."""
    old = os.umask(0o022)
    os.umask(old)

    def set_to(mask):
        os.umask(mask)

    yield set_to
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def counts_model():
    return MultinomialNB().fit(np.array([[2, 0], [0, 3], [1, 1]]), ["a", "b", "a"])


# -- 1. atomic replace only where it is safe ---------------------------------------------------
def test_a_named_pipe_is_written_into_never_replaced(tmp_path, fruit, capsys):
    data, model = fruit
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = Reader(fifo)
    status, _, err = run(capsys, "predict", model, data, "-o", fifo, "--output-format", "csv")
    assert status == 0, err
    assert reader.result().decode() == EXPECTED
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)

    reader = Reader(fifo)  # a model file through a pipe: the same bytes as in a file
    save(counts_model(), fifo)
    assert reader.result() == save(counts_model(), tmp_path / "m.nbayes").read_bytes()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)

    reader = Reader(fifo)  # `nbayes train -o FIFO`: without a suffix, into the pipe as well
    status, _, err = run(capsys, "train", data, "--target", "fruit", "-o", fifo, "-q")
    assert status == 0, err
    assert reader.result()[:2] == b"PK" and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert listing(tmp_path) == ["fruit.csv", "fruit.nbayes", "m.nbayes", "out.fifo"]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_a_descriptor_path_is_written_into(tmp_path, fruit, capsys, fmt):
    """``-o /dev/fd/N`` (what ``>(cmd)`` gives) writes into that descriptor."""
    data, model = fruit
    read_end, write_end = os.pipe()
    got = []
    thread = threading.Thread(target=lambda: got.append(os.fdopen(read_end, "rb").read()))
    thread.start()
    try:
        out = f"/dev/fd/{write_end}"
        status, _, err = run(capsys, "predict", model, data, "-o", out, "--output-format", fmt)
    finally:
        os.close(write_end)
        thread.join(timeout=30)
    assert status == 0, err
    path = tmp_path / f"got.{fmt}"
    path.write_bytes(got[0])
    frame = {"csv": pd.read_csv, "parquet": pd.read_parquet, "jsonl": pd.read_json}[fmt]
    kwargs = {"lines": True} if fmt == "jsonl" else {}
    assert frame(path, **kwargs)["prediction"].tolist() == ["apple", "apple", "banana", "banana"]


def test_through_a_symbolic_link_the_target_is_replaced_and_the_link_kept(tmp_path, fruit):
    data, model = fruit
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real.name)
    predict(str(model), str(data), str(link))
    assert os.path.islink(link) and os.readlink(link) == "real.csv"
    assert real.read_text() == EXPECTED

    save(counts_model(), link)
    assert os.path.islink(link) and load(real).classes_.tolist() == ["a", "b"]


def test_a_folder_as_output_is_an_error_naming_it(tmp_path):
    (tmp_path / "sub").mkdir()
    with pytest.raises(WriteError, match=r"cannot write .*sub: it is a folder"):
        save(counts_model(), tmp_path / "sub")


def test_new_files_honour_the_umask_and_replaced_files_keep_their_mode(
    tmp_path, fruit, umask, capsys
):
    data, model = fruit
    umask(0o077)
    save(counts_model(), tmp_path / "private.nbayes")
    assert mode(tmp_path / "private.nbayes") == 0o600  # was 0o644 whatever the umask
    umask(0o022)
    assert run(capsys, "predict", model, data, "-o", tmp_path / "p.csv")[0] == 0
    assert mode(tmp_path / "p.csv") == 0o644  # was 0o600 whatever the umask
    assert run(capsys, "train", data, "-t", "fruit", "-o", tmp_path / "m2.nbayes")[0] == 0
    assert mode(tmp_path / "m2.nbayes") == 0o644
    os.chmod(tmp_path / "p.csv", 0o640)
    assert run(capsys, "predict", model, data, "-o", tmp_path / "p.csv", "--proba")[0] == 0
    assert mode(tmp_path / "p.csv") == 0o640 and "proba_apple" in (tmp_path / "p.csv").read_text()


# -- 3. a write error is never success ----------------------------------------------------------
def failing_write(after: int, code: int = errno.ENOSPC):
    """An ``os.write`` that fails with ``code`` once ``after`` bytes went through."""
    real = os.write
    written = [0]

    def write(fd, data):
        if written[0] + len(data) > after:
            raise OSError(code, os.strerror(code))
        written[0] += len(data)
        return real(fd, data)

    return write


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO, errno.EPIPE])
def test_a_full_disk_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch, code):
    target = tmp_path / "m.nbayes"
    target.write_bytes(b"the old good model")
    monkeypatch.setattr(os, "write", failing_write(100, code))
    with pytest.raises(WriteError, match=f"cannot write .*m.nbayes: {os.strerror(code)}"):
        save(counts_model(), target)
    assert target.read_bytes() == b"the old good model"
    assert listing(tmp_path) == ["m.nbayes"]


def test_an_interrupt_while_writing_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    with pytest.raises(KeyboardInterrupt), output_file(target) as f:
        f.write(b"new, half")
        raise KeyboardInterrupt
    assert target.read_text() == "old\n" and listing(tmp_path) == ["out.csv"]


def test_predict_on_a_full_disk_exits_1_naming_the_output(tmp_path, fruit, monkeypatch, capsys):
    data, model = fruit
    out = tmp_path / "p.csv.gz"
    out.write_bytes(b"old")
    monkeypatch.setattr(os, "write", failing_write(10))
    status, _, err = run(capsys, "predict", model, data, "-o", out)
    assert status == 1
    assert err == f"nbayes: error: cannot write {out}: No space left on device\n"
    assert out.read_bytes() == b"old"
    assert listing(tmp_path) == ["fruit.csv", "fruit.nbayes", "p.csv.gz"]


# -- issue 13 point 9: no lost data -------------------------------------------------------------
def test_output_never_replaces_an_input(tmp_path, fruit, capsys, monkeypatch):
    data, model = fruit
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hard.csv").hardlink_to(data)
    (tmp_path / "soft.nbayes").symlink_to(model)
    before = data.read_bytes(), model.read_bytes()
    other_spelling = f"../{tmp_path.name}/fruit.nbayes"
    cases = [
        (["predict", "fruit.nbayes", "fruit.csv", "-o", "./fruit.csv"], "is DATA"),
        (["predict", "fruit.nbayes", "./fruit.csv", "-o", "hard.csv"], "is DATA"),
        (["predict", "fruit.nbayes", "fruit.csv", "-o", "soft.nbayes"], "is MODEL"),
        (["predict", "fruit.nbayes", "fruit.csv", "-o", other_spelling], "is MODEL"),
        (["train", "fruit.csv", "-t", "fruit", "-o", "hard.csv"], "is DATA"),
    ]
    for argv, what in cases:
        status, _, err = run(capsys, *argv)
        assert status == 2 and what in err and "Choose another output file" in err, argv
    assert (data.read_bytes(), model.read_bytes()) == before


def test_keep_never_overwrites_with_an_output_column(fruit, capsys):
    data, model = fruit
    status, _, err = run(capsys, "predict", model, data, "--keep", "colour,prediction")
    assert status == 2 and "--keep ['prediction']: the output has its own column" in err
    status, _, err = run(capsys, "predict", model, data, "--proba", "--keep", "proba_apple")
    assert status == 2 and "['proba_apple']" in err
    status, out, _ = run(capsys, "predict", model, data, "--keep", "colour", "--keep", "colour")
    assert status == 0 and out.splitlines()[:2] == ["colour,prediction", "red,apple"]


def test_output_suffixes_compress_or_are_refused(tmp_path, fruit, capsys):
    data, model = fruit
    assert run(capsys, "predict", model, data, "-o", tmp_path / "p.csv.gz")[0] == 0
    assert gzip.decompress((tmp_path / "p.csv.gz").read_bytes()).decode() == EXPECTED
    assert run(capsys, "predict", model, data, "-o", tmp_path / "p.jsonl.xz")[0] == 0
    frame = pd.read_json(tmp_path / "p.jsonl.xz", lines=True)
    assert frame["prediction"].tolist() == ["apple", "apple", "banana", "banana"]
    status, _, err = run(capsys, "predict", model, data, "-o", tmp_path / "p.txt")
    assert status == 2 and "cannot tell the output format" in err
    status, _, err = run(capsys, "predict", model, data, "-o", tmp_path / "p.parquet.gz")
    assert status == 2 and "Parquet files compress their own columns" in err
    assert "p.txt" not in listing(tmp_path)
    out = tmp_path / "p.txt"
    assert run(capsys, "predict", model, data, "-o", out, "--output-format", "tsv")[0] == 0
    assert out.read_text() == EXPECTED


def test_bz2_output_and_a_zst_output_without_zstandard(tmp_path, fruit, capsys, monkeypatch):
    import bz2

    data, model = fruit
    assert run(capsys, "predict", model, data, "-o", tmp_path / "p.csv.bz2")[0] == 0
    assert bz2.decompress((tmp_path / "p.csv.bz2").read_bytes()).decode() == EXPECTED
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if it were not installed
    status, _, err = run(capsys, "predict", model, data, "-o", tmp_path / "p.csv.zst")
    assert status == 2
    assert "p.csv.zst: writing .zst needs the zstandard package (pip install zstandard)" in err
    assert listing(tmp_path) == ["fruit.csv", "fruit.nbayes", "p.csv.bz2"]


def test_the_predict_worker_refuses_an_unknown_output_format(tmp_path, fruit):
    from nbayes.cli._common import UsageError

    data, model = fruit
    with pytest.raises(UsageError, match=r"output format must be one of .*; got 'xml'"):
        predict(str(model), str(data), str(tmp_path / "p.xml"), out_format="xml")
    assert listing(tmp_path) == ["fruit.csv", "fruit.nbayes"]


def test_parquet_to_standard_output_is_a_usage_error(fruit, capsys):
    data, model = fruit
    status, out, err = run(capsys, "predict", model, data, "--output-format", "parquet")
    assert (status, out) == (2, "")
    assert err == "nbayes: error: Parquet output needs a file: pass -o OUT.parquet.\n"


def test_a_named_pipe_without_a_suffix_gets_csv(tmp_path, fruit, capsys):
    data, model = fruit
    fifo = tmp_path / "predictions"
    os.mkfifo(fifo)
    reader = Reader(fifo)
    status, _, err = run(capsys, "predict", model, data, "-o", fifo)
    assert status == 0, err
    assert reader.result().decode() == EXPECTED
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_header_only_input_gives_an_empty_json_lines_output(tmp_path, fruit, capsys):
    _, model = fruit
    empty = tmp_path / "empty.csv"
    empty.write_text(FRUIT.splitlines()[0] + "\n")
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    status, _, err = run(capsys, "predict", model, empty, "--proba", "-o", out)
    assert status == 0, err
    assert out.read_text() == ""  # JSON lines have no header: no rows, no text


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_header_only_input_gives_a_header_only_output(tmp_path, fruit, capsys, suffix):
    data, model = fruit
    empty = tmp_path / f"empty.{suffix}"
    frame = pd.read_csv(data).iloc[:0]
    frame.to_csv(empty, index=False) if suffix == "csv" else frame.to_parquet(empty)
    out = tmp_path / f"out.{suffix}"
    status, _, err = run(capsys, "predict", model, empty, "--proba", "--keep", "colour", "-o", out)
    assert status == 0, err
    got = pd.read_csv(out) if suffix == "csv" else pd.read_parquet(out)
    assert len(got) == 0
    assert got.columns.tolist() == ["colour", "prediction", "proba_apple", "proba_banana"]


# -- 2. non-seekable input ---------------------------------------------------------------------
class Writer(threading.Thread):
    """Writes ``data`` once into a named pipe or a pipe descriptor, then closes it."""

    def __init__(self, target, data: bytes):
        super().__init__(daemon=True)
        self.target, self.data = target, data
        self.start()

    def run(self):
        if isinstance(self.target, int):
            with os.fdopen(self.target, "wb") as f:
                f.write(self.data)
        else:
            with open(self.target, "wb") as f:
                f.write(self.data)


def test_data_from_a_named_pipe_or_a_descriptor_is_read_once(tmp_path, fruit, capsys):
    data, model = fruit
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    Writer(fifo, data.read_bytes())
    status, out, err = run(capsys, "predict", model, fifo, "--keep", "colour")
    assert status == 0, err
    assert out == "colour,prediction\nred,apple\ngreen,apple\nyellow,banana\nyellow,banana\n"

    read_end, write_end = os.pipe()  # what `<(zcat data.csv.gz)` gives: /dev/fd/N, compressed
    Writer(write_end, gzip.compress(data.read_bytes()))
    try:
        status, out, err = run(capsys, "predict", model, f"/dev/fd/{read_end}")
    finally:
        os.close(read_end)
    assert status == 0, err
    assert out == EXPECTED


def test_a_text_model_reads_a_pipe_twice_from_one_pass_over_it(tmp_path, capsys):
    """The vocabulary pass and the training pass both read DATA; the pipe is read once."""
    rows = ["label,text"] + [f"spam,win cash prize {i}" for i in range(3000)]
    rows += [f"ham,see you at lunch {i}" for i in range(3000)]
    body = ("\n".join(rows) + "\n").encode()
    on_disk = tmp_path / "sms.csv"
    on_disk.write_bytes(body)
    fifo = tmp_path / "sms.fifo"
    os.mkfifo(fifo)
    Writer(fifo, body)
    args = ["--target", "label", "--text-column", "text", "--chunk-rows", "500", "-q"]
    assert run(capsys, "train", fifo, *args, "-o", tmp_path / "pipe.nbayes")[0] == 0
    assert run(capsys, "train", on_disk, *args, "-o", tmp_path / "file.nbayes")[0] == 0
    a, b = load(tmp_path / "pipe.nbayes"), load(tmp_path / "file.nbayes")
    assert a.vectorizer_.vocabulary_ == b.vectorizer_.vocabulary_
    np.testing.assert_array_equal(a.classifier_.feature_count_, b.classifier_.feature_count_)


def test_parquet_json_lines_and_empty_input_from_a_pipe(tmp_path, fruit, capsys):
    data, model = fruit
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    pq = tmp_path / "fruit.parquet"
    pd.read_csv(data).to_parquet(pq)
    Writer(fifo, pq.read_bytes())  # no name to go by: the format is read from the first bytes
    status, out, err = run(capsys, "predict", model, fifo)
    assert status == 0, err
    assert out == EXPECTED
    Writer(fifo, gzip.compress(pd.read_csv(data).to_json(orient="records", lines=True).encode()))
    status, out, err = run(capsys, "predict", model, fifo)
    assert status == 0, err
    assert out == EXPECTED
    Writer(fifo, b"")
    status, _, err = run(capsys, "predict", model, fifo)
    assert status == 1 and "in.fifo: nothing came in (the input is empty)" in err


# -- 3, 4, 5: the command as a process: write errors, signals, a reader that goes away ---------
def nbayes(*argv, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "nbayes", *map(str, argv)],
        stdout=kwargs.pop("stdout", subprocess.PIPE),
        stderr=subprocess.PIPE,
        **kwargs,
    )


@pytest.fixture
def many_rows(tmp_path, fruit):
    """A 40,000-row table: more output than a pipe holds."""
    model = fruit[1]
    big = tmp_path / "big.csv"
    big.write_text(FRUIT + "red,150,apple\n" * 40_000)
    return big, model


def test_a_reader_that_goes_away_ends_the_command_quietly(many_rows):
    big, model = many_rows
    proc = nbayes("predict", model, big, "--proba")
    assert proc.stdout.readline() == b"prediction,proba_apple,proba_banana\n"
    proc.stdout.close()  # `| head -1`
    assert proc.wait(timeout=60) == 0
    assert proc.stderr.read() == b""


def small_files():
    """Limit files this process writes to 1 kB: a full disk without touching a device."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))


def unmeasured() -> dict:
    """This process's environment without the variables that make a child Python measure
    coverage (under ``--cov``): a child limited to 1 kB files could not write its coverage
    data, and would say so on the standard error these tests compare."""
    return {k: v for k, v in os.environ.items() if not k.startswith("COV")}


def test_standard_output_that_cannot_be_written_exits_1(tmp_path, many_rows):
    big, model = many_rows
    with open(tmp_path / "stdout.csv", "wb") as stdout:
        proc = nbayes(
            "predict", model, big, stdout=stdout, preexec_fn=small_files, env=unmeasured()
        )
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1  # was 0 with every prediction lost
    assert err == b"nbayes: error: cannot write standard output: File too large\n"

    out = tmp_path / "out.csv"
    out.write_text("old\n")
    proc = nbayes("predict", model, big, "-o", out, preexec_fn=small_files, env=unmeasured())
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert err == f"nbayes: error: cannot write {out}: File too large\n".encode()
    assert out.read_text() == "old\n" and not list(tmp_path.glob(".*.tmp"))


def test_printed_results_that_cannot_be_written_exit_1(fruit, monkeypatch, capsys):
    data, model = fruit

    class Full(io.StringIO):
        def flush(self):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(sys, "stdout", Full())
    assert main(["evaluate", str(model), str(data), "--target", "fruit"]) == 1
    assert capsys.readouterr().err == (
        "nbayes: error: cannot write standard output: No space left on device\n"
    )


def wait_for(predicate, what: str, seconds: float = 30):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("sig", "status", "word"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
@pytest.mark.parametrize("command", ["predict", "train"])
def test_a_signal_stops_cleanly_and_keeps_the_old_output(
    tmp_path, fruit, sig, status, word, command
):
    """The signal arrives while DATA is being read (pandas' CSV reader used to report it as a
    malformed row) and the output is half written: the old output stays, nothing is left."""
    model = fruit[1]
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    if command == "predict":
        out = tmp_path / "out.csv"
        argv = ["predict", model, fifo, "-o", out, "--chunk-rows", "1000"]
    else:
        out = tmp_path / "old.nbayes"
        argv = ["train", fifo, "--target", "fruit", "-o", out, "--chunk-rows", "1000"]
    out.write_bytes(b"the old output")
    proc = nbayes(*argv)
    with open(fifo, "wb") as feed:  # held open: the command waits for more rows
        feed.write((FRUIT + "red,150,apple\n" * 100_000).encode())  # past the 1 MB sniffed
        feed.flush()
        if command == "predict":  # the first chunks are in the temporary file by now
            wait_for(lambda: list(tmp_path.glob(".out.csv.*.tmp")), "the temporary output")
        else:
            time.sleep(1.0)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err.decode()) == (status, f"nbayes: {word}\n")
    assert out.read_bytes() == b"the old output"
    assert not list(tmp_path.glob(".*.tmp"))


def test_nothing_is_committed_once_a_signal_arrived(tmp_path):
    """A library may swallow the interrupt (pandas can take it for the end of the data): the
    writer then keeps the old file rather than commit what may be half the output."""
    target = tmp_path / "m.nbayes"
    target.write_bytes(b"old")
    stop_signals.append(signal.SIGINT)
    try:
        with pytest.raises(KeyboardInterrupt):
            save(counts_model(), target)
    finally:
        stop_signals.clear()
    assert target.read_bytes() == b"old" and listing(tmp_path) == ["m.nbayes"]


def test_a_pipe_whose_reader_leaves_is_an_error_for_o(tmp_path, many_rows, capsys):
    """Only standard output's reader may end the command quietly: ``-o FIFO`` losing its
    reader means the output is incomplete."""
    big, model = many_rows
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)

    def read_a_little():
        with open(fifo, "rb") as f:
            f.read(10)

    reader = threading.Thread(target=read_a_little, daemon=True)
    reader.start()
    status, _, err = run(capsys, "predict", model, big, "-o", fifo, "--output-format", "csv")
    reader.join(timeout=30)
    assert status == 1
    assert err == f"nbayes: error: cannot write {fifo}: Broken pipe\n"


def test_a_block_device_is_refused(tmp_path, monkeypatch):
    """Writing a model over a disk is never what was meant (faked: no device is touched)."""
    disk = tmp_path / "sdz"
    disk.write_bytes(b"")
    real_stat = os.stat

    def stat_as_disk(path, *args, **kwargs):
        st = real_stat(path, *args, **kwargs)
        if os.fspath(path) != os.fspath(disk):
            return st
        return os.stat_result((stat.S_IFBLK | 0o660, *tuple(st)[1:]))

    monkeypatch.setattr(os, "stat", stat_as_disk)
    with pytest.raises(WriteError, match="sdz: it is a block device"):
        save(counts_model(), disk)


def test_a_loop_of_symbolic_links_is_an_error_naming_the_output(tmp_path):
    (tmp_path / "a.nbayes").symlink_to("b.nbayes")
    (tmp_path / "b.nbayes").symlink_to("a.nbayes")
    with pytest.raises(WriteError, match=r"cannot write .*a\.nbayes: Too many levels of symbolic"):
        save(counts_model(), tmp_path / "a.nbayes")
    assert listing(tmp_path) == ["a.nbayes", "b.nbayes"]
    assert os.readlink(tmp_path / "a.nbayes") == "b.nbayes"


def test_a_link_to_a_standard_stream_names_its_descriptor(tmp_path):
    """A link to /dev/stdout is written into descriptor 1, never replaced (checked without
    writing: the decision alone, so that no test ever writes through a system path)."""
    from nbayes._output import _fd_behind, special_target

    for stream, fd in [("stdin", 0), ("stdout", 1), ("stderr", 2)]:
        link = tmp_path / f"to-{stream}"
        link.symlink_to(f"/dev/{stream}")
        assert _fd_behind(str(link)) == fd
        assert special_target(link)


def test_a_closed_output_neither_writes_nor_closes_a_reused_descriptor():
    from nbayes._output import _Sink

    read_end, write_end = os.pipe()
    os.close(read_end)
    sink = _Sink(write_end, "out.csv")
    sink.close()
    # The number is free now: the next descriptor opened may well get it.
    again_read, again_write = os.pipe()
    try:
        with pytest.raises(ValueError, match=r"out\.csv: write to a closed output"):
            sink.write(b"late")
        sink.close()  # closing twice must not close whatever holds the number now
        assert os.write(again_write, b"still open") == 10
        assert os.read(again_read, 10) == b"still open"
    finally:
        os.close(again_read)
        os.close(again_write)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another owner needs root")
def test_a_replaced_file_keeps_its_owner_where_we_may(tmp_path):
    target = tmp_path / "shared.nbayes"
    target.write_bytes(b"old")
    os.chown(target, 4242, 4343)
    os.chmod(target, 0o640)
    save(counts_model(), target)
    st = os.stat(target)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4242, 4343, 0o640)
    assert load(target).classes_.tolist() == ["a", "b"]


def test_an_owner_we_may_not_give_the_file_to_leaves_it_the_writers(tmp_path, monkeypatch):
    target = tmp_path / "theirs.nbayes"
    target.write_bytes(b"old")
    os.chmod(target, 0o604)
    real_uid = os.getuid()
    calls = []

    def refuse(fd, uid, gid):
        calls.append((uid, gid))
        raise PermissionError(errno.EPERM, "Operation not permitted")

    # The file looks like another user's: its owner cannot be given back, yet the new
    # content is written (and keeps the old mode).
    monkeypatch.setattr(os, "getuid", lambda: real_uid + 1)
    monkeypatch.setattr(os, "fchown", refuse)
    save(counts_model(), target)
    assert calls == [(real_uid, os.getgid())]
    assert load(target).classes_.tolist() == ["a", "b"] and mode(target) == 0o604
    assert listing(tmp_path) == ["theirs.nbayes"]


def test_a_mode_that_cannot_be_kept_is_a_write_error_and_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "m.nbayes"
    target.write_bytes(b"the old good model")

    def no_modes(fd, mode):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "fchmod", no_modes)
    with pytest.raises(WriteError, match=r"cannot write .*m\.nbayes: Operation not permitted"):
        save(counts_model(), target)
    assert target.read_bytes() == b"the old good model"
    assert listing(tmp_path) == ["m.nbayes"]


#: Runs ``nbayes`` in a fresh process with one function replaced by one that sends SIGINT to
#: the process itself: a signal at a known place (pytest's workers may run tests outside the
#: main thread, where a command cannot install signal handlers).
INTERRUPTED_AT = """
import importlib, os, signal, sys, time
from nbayes.cli import main

def interrupt_self(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)  # the handler raises before this ends
    sys.exit("the interrupt did not stop the command")

module, name = sys.argv[1].rsplit(":", 1)
owner = importlib.import_module(module)
*path, last = name.split(".")
for part in path:
    owner = getattr(owner, part)
setattr(owner, last, interrupt_self)
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize(
    ("where", "command"),
    [
        ("nbayes.cli.train:_train_in_chunks", "train"),  # fitting
        ("nbayes._output:_Sink.write", "train"),  # writing the model
        ("nbayes._output:_Sink.write", "predict"),  # writing predictions
    ],
)
def test_an_interrupt_while_fitting_or_writing_exits_130(tmp_path, fruit, where, command):
    data, model = fruit
    out = tmp_path / ("old.nbayes" if command == "train" else "old.csv")
    out.write_bytes(b"old")
    argv = ["train", data, "-t", "fruit"] if command == "train" else ["predict", model, data]
    proc = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_AT, where, *map(str, argv), "-o", str(out)],
        capture_output=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stderr) == (130, b"nbayes: interrupted\n")
    assert out.read_bytes() == b"old"
    assert listing(tmp_path) == ["fruit.csv", "fruit.nbayes", out.name]
