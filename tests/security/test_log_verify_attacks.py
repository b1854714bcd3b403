"""Issue #32 items 6, 11 and 13: attacks on ``toolhooks logs verify`` that passed before. Every
log is written by the real pipeline and writer; each attack is then done to the file, as someone
who can write the log (but not read the key) would."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from toolhooks import Runtime
from toolhooks.cli import main
from toolhooks.plugins.event_log import EventLogConfig, EventLogPlugin, log_files, verify
from toolhooks.plugins.event_log._chain import GENESIS

KEY = b"an-auditors-key-" * 2


def write_log(path: Path, calls: int = 4, close: bool = True, **config: object) -> Path:
    """``calls`` real calls through the pipeline into a chained log at ``path``."""
    log = EventLogPlugin(EventLogConfig(path=str(path), durability="call", **config))  # type: ignore[arg-type]
    rt = Runtime(config={}, load_entrypoints=False, plugins=[log])

    @rt.tool
    def read(path: str) -> str:
        """Read a file."""
        return f"contents of {path}"

    for i in range(calls):
        rt.call({"name": "read", "params": {"path": f"f{i}.txt"}, "session_id": "s"})
    if close:
        rt.close()
    return path


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "log.key"
    path.write_bytes(KEY)
    return path


def keyed_log(tmp_path: Path, key_file: Path, calls: int = 6, every: int = 5) -> Path:
    return write_log(
        tmp_path / "events.jsonl", calls, key_file=str(key_file), checkpoint_every=every
    )


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def records(path: Path) -> list[dict]:
    return [json.loads(raw) for raw in lines(path)]


def report_of(path: Path, key: bytes | None = None):
    return verify(log_files(path, include_rotated=True), key)


def forged(record: dict, writer: str, seq: int, prev: str) -> bytes:
    """A line chained as the writer chains it, by someone without the key."""
    record = {k: v for k, v in record.items() if k != "chain"}
    body = json.dumps(record, separators=(",", ":"))[:-1]
    body += f',"chain":{{"writer":"{writer}","seq":{seq},"prev":"{prev}"'
    digest = hashlib.sha256((body + "}}").encode()).hexdigest()
    return f'{body},"hash":"{digest}"}}}}\n'.encode()


def rechain(items: list[dict], writer: str, seq: int = 0, prev: str = GENESIS) -> list[bytes]:
    out = []
    for record in items:
        line = forged(record, writer, seq, prev)
        out.append(line)
        prev, seq = json.loads(line)["chain"]["hash"], seq + 1
    return out


def cli(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["logs", "verify", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


# -- item 13: the hash covers the bytes as written ----------------------------------------------


@pytest.mark.parametrize("added", [b"\r", b"  ", b"\t"])
def test_bytes_added_at_the_end_of_a_line_are_an_edit(tmp_path, added, capsys):
    path = write_log(tmp_path / "events.jsonl", 2)
    data = lines(path)
    data[1] = data[1][:-1] + added + b"\n"
    path.write_bytes(b"".join(data))
    report = report_of(path)
    assert not report.ok
    assert report.problems[0].line == 2 and "edited" in report.problems[0].what
    code, said = cli(str(path), capsys=capsys)
    assert code == 1 and f"{path}:2" in said


def test_crlf_line_ends_are_an_edit(tmp_path):
    path = write_log(tmp_path / "events.jsonl", 2)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    report = report_of(path)
    assert not report.ok and len(report.problems) == len(lines(path))


def test_a_blank_line_or_trailing_whitespace_in_a_chained_file_is_named(tmp_path):
    path = write_log(tmp_path / "events.jsonl", 2)
    data = lines(path)
    path.write_bytes(b"".join([*data[:2], b" \n", *data[2:]]))
    assert [p.line for p in report_of(path).problems] == [3]
    path.write_bytes(b"".join([*data, b"\r"]))
    assert [p.line for p in report_of(path).problems] == [len(data) + 1]


# -- item 11: forged lines and chains that verified ---------------------------------------------


def test_an_unchained_line_before_the_first_chained_one_is_tampering(tmp_path, capsys):
    path = write_log(tmp_path / "events.jsonl", 2)
    first = records(path)[0]
    fake = {"ts": first["ts"] - 1, "event": "approval.resolved", "decision": "allow-always"}
    path.write_bytes(json.dumps(fake).encode() + b"\n" + path.read_bytes())
    report = report_of(path)
    assert not report.ok and report.problems[0].line == 1
    assert "without a chain before the chained ones" in report.problems[0].what
    code, said = cli(str(path), capsys=capsys)
    assert code == 1 and "FAILED" in said


def test_a_log_written_without_a_chain_still_verifies_as_unchained(tmp_path, capsys):
    path = write_log(tmp_path / "events.jsonl", 2, chain=False)
    report = report_of(path)
    assert report.ok and report.chained == 0 and report.lines == len(lines(path))


def test_with_a_key_a_whole_new_chain_without_a_checkpoint_is_tampering(tmp_path, key_file):
    path = keyed_log(tmp_path, key_file)
    assert report_of(path, KEY).ok
    call = [r for r in records(path) if r["event"] != "log.checkpoint"][:4]
    for r in call:
        r["call_id"] = "forged"
    path.write_bytes(path.read_bytes() + b"".join(rechain(call, "f0f0f0f0f0f0")))
    report = report_of(path, KEY)
    assert not report.ok
    assert "not its keyed opening checkpoint" in report.problems[0].what
    assert report.problems[0].line == len(lines(path)) - 3


def test_with_a_key_a_chain_stripped_of_its_fields_is_tampering(tmp_path, key_file):
    path = keyed_log(tmp_path, key_file)
    stripped = [{k: v for k, v in r.items() if k != "chain"} for r in records(path)]
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in stripped))
    report = report_of(path, KEY)
    assert not report.ok and "no chained line" in report.problems[0].what


@pytest.mark.parametrize("keyed", [False, True])
def test_oldest_lines_replaced_by_a_forged_export_header_is_tampering(
    tmp_path, key_file, keyed, capsys
):
    path = (
        keyed_log(tmp_path, key_file, calls=6) if keyed else write_log(tmp_path / "events.jsonl", 6)
    )
    data = lines(path)
    cut = len(data) // 2
    before = json.loads(data[cut - 1])["chain"]
    header = {"ts": 1.0, "event": "log.export", "heads": {before["writer"]: before}}
    path.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(data[cut:]))
    report = report_of(path, KEY if keyed else None)
    assert not report.ok
    assert report.problems[0].line == 1 and "log.export header in a log" in report.problems[0].what
    args = [str(path), *(["--key-file", str(key_file)] if keyed else [])]
    code, said = cli(*args, capsys=capsys)
    assert code == 1 and "--excerpt" in said
    # Said to be an excerpt, it is one (the header's hashes are what place it in the full log).
    assert verify([str(path)], KEY if keyed else None, excerpt=True).ok


def test_an_excerpt_flag_on_a_log_without_a_header_is_named(tmp_path, capsys):
    path = write_log(tmp_path / "events.jsonl", 2)
    code, said = cli(str(path), "--excerpt", capsys=capsys)
    assert code == 1 and "not an export's header" in said


def test_an_export_of_a_keyed_log_verifies_with_the_key(tmp_path, key_file, capsys):
    path = keyed_log(tmp_path, key_file, calls=8, every=3)
    middle = records(path)[len(lines(path)) // 2]["ts"]
    since = datetime.fromtimestamp(middle, timezone.utc).isoformat()
    assert main(["logs", "export", str(path), "--since", since]) == 0
    bundle = tmp_path / "bundle.jsonl"
    bundle.write_bytes(capsys.readouterr().out.encode())
    code, said = cli(str(bundle), "--excerpt", "--key-file", str(key_file), capsys=capsys)
    assert code == 0, said


# -- item 6: with a key, checkpoints where checkpoint_every puts them, and at the end -----------


def test_a_keyed_writer_opens_checkpoints_every_n_lines_and_closes(tmp_path, key_file):
    path = keyed_log(tmp_path, key_file, calls=6, every=5)
    got = records(path)
    marks = [r.get("reason") if r["event"] == "log.checkpoint" else "." for r in got]
    assert marks[0] == "open" and marks[-1] == "close"
    runs = "".join("|" if m != "." else "." for m in marks).split("|")
    assert all(len(run) == 5 for run in runs[1:-2]) and 0 < len(runs[-2]) <= 5, marks
    assert all(r["every"] == 5 for r in got if r["event"] == "log.checkpoint")
    report = report_of(path, KEY)
    assert (
        report.ok
        and not report.unverified
        and report.checkpoints
        == marks.count("open") + (marks.count("every") + marks.count("close"))
    )


def test_with_a_key_a_rewrite_without_its_checkpoints_is_tampering(tmp_path, key_file, capsys):
    """Item 6 as reported: edited, re-chained, every checkpoint dropped (a new writer id)."""
    path = keyed_log(tmp_path, key_file, calls=6, every=5)
    kept = [r for r in records(path) if r["event"] != "log.checkpoint"]
    kept[2]["params"] = {"path": "/etc/shadow"}
    path.write_bytes(b"".join(rechain(kept, "0123456789ab")))
    assert report_of(path).ok  # without the key, a full rewrite is not seen (RELIABILITY.md)
    report = report_of(path, KEY)
    assert not report.ok and report.problems[0].line == 1
    code, said = cli(str(path), "--key-file", str(key_file), capsys=capsys)
    assert code == 1 and "FAILED" in said


def test_with_a_key_a_rewrite_keeping_the_opening_checkpoint_is_tampering(tmp_path, key_file):
    """The genuine opening kept, the rest edited and re-chained under the same writer with its
    checkpoints dropped: more than ``every`` lines without one."""
    path = keyed_log(tmp_path, key_file, calls=6, every=5)
    data = lines(path)
    opening = json.loads(data[0])["chain"]
    kept = [r for r in records(path)[1:] if r["event"] != "log.checkpoint"]
    kept[1]["params"] = {"path": "/etc/shadow"}
    tail = rechain(kept, opening["writer"], 1, opening["hash"])
    path.write_bytes(data[0] + b"".join(tail))
    report = report_of(path, KEY)
    assert not report.ok
    assert report.problems[0].line == 7 and "a checkpoint is missing" in report.problems[0].what


def test_a_dropped_checkpoint_is_named(tmp_path, key_file):
    path = keyed_log(tmp_path, key_file, calls=6, every=5)
    data = lines(path)
    at = next(i for i, raw in enumerate(data) if b'"reason":"every"' in raw)
    kept = [json.loads(raw) for raw in data[at + 1 :]]
    before = json.loads(data[at])["chain"]
    rest = rechain(kept, before["writer"], before["seq"], before["prev"])
    path.write_bytes(b"".join([*data[:at], *rest]))
    report = report_of(path, KEY)
    assert not report.ok and "a checkpoint is missing" in report.problems[0].what


def test_a_live_writers_open_tail_is_reported_as_not_covered(tmp_path, key_file, capsys):
    log = EventLogPlugin(
        EventLogConfig(
            path=str(tmp_path / "events.jsonl"),
            durability="call",
            key_file=str(key_file),
            checkpoint_every=100,
        )
    )
    rt = Runtime(config={}, load_entrypoints=False, plugins=[log])
    rt.add_tool(lambda: "ok", name="ping")
    try:
        rt.call({"name": "ping", "params": {}})
        path = tmp_path / "events.jsonl"
        report = report_of(path, KEY)
        assert report.ok and len(report.unverified) == 1
        assert f"{path}:2" in report.unverified[0]
        code, said = cli(str(path), "--key-file", str(key_file), capsys=capsys)
        assert code == 0 and "not covered by the key" in said
    finally:
        rt.close()
    report = report_of(path, KEY)
    assert report.ok and not report.unverified


def test_a_keyed_chain_opens_each_file_it_writes_to(tmp_path, key_file):
    path = tmp_path / "events.jsonl"
    write_log(path, 12, key_file=str(key_file), checkpoint_every=7, max_bytes=3000)
    files = log_files(path, include_rotated=True)
    assert len(files) >= 3
    for name in files:
        first = json.loads(Path(name).read_bytes().splitlines()[0])
        assert first["event"] == "log.checkpoint" and first["reason"] in ("open", "file")
    report = verify(files, KEY)
    assert report.ok, report.problems
    # The oldest file's first lines cut (not the whole file): its writer no longer opens there.
    oldest = Path(files[0])
    oldest.write_bytes(b"".join(oldest.read_bytes().splitlines(keepends=True)[2:]))
    assert not verify(files, KEY).ok


def test_processes_rotating_one_keyed_log_open_each_file_they_write(tmp_path, key_file):
    """Rotation done by another process: each writer opens the new file when it gets there."""
    path = tmp_path / "events.jsonl"
    script = (
        "import sys; sys.path.insert(0, sys.argv[2]); "
        "from test_log_verify_attacks import write_log; from pathlib import Path; "
        "write_log(Path(sys.argv[1]), 40, key_file=sys.argv[3], checkpoint_every=7, "
        "max_bytes=6000, backup_count=200)"
    )
    here = str(Path(__file__).parent)
    argv = [sys.executable, "-c", script, str(path), here, str(key_file)]
    procs = [subprocess.Popen(argv) for _ in range(3)]
    assert [p.wait(120) for p in procs] == [0, 0, 0]
    files = log_files(path, include_rotated=True)
    assert len(files) > 5
    report = verify(files, KEY)
    assert report.ok, [str(p) for p in report.problems[:5]]
    assert report.writers == 3 and not report.unverified
