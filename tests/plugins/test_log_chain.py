"""Issue #25: the hash-chained event log and ``toolhooks logs verify``. Every log here is written
by the real pipeline (or real writer processes); each tampering is then done to the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolhooks import Runtime, hookimpl
from toolhooks.cli import main
from toolhooks.plugins.event_log import EventLogConfig, EventLogPlugin, read_key, verify


class Rewrites:
    @hookimpl
    def before_tool_call(self, call):
        return {"params": {"path": "/ws/" + call.params["path"]}}


def write_log(path: Path, calls: int = 4, **config) -> Path:
    """``calls`` real calls through the pipeline into a chained log at ``path``."""
    log = EventLogPlugin(EventLogConfig(path=str(path), durability="call", **config))
    rt = Runtime(config={}, load_entrypoints=False, plugins=[Rewrites(), log])

    @rt.tool
    def read(path: str) -> str:
        """Read a file."""
        return f"contents of {path}"

    for i in range(calls):
        rt.call({"name": "read", "params": {"path": f"f{i}.txt"}, "session_id": "s"})
    rt.close()
    return path


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def report_of(path: Path, key: bytes | None = None):
    from toolhooks.plugins.event_log import log_files

    return verify(log_files(path, include_rotated=True), key)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return write_log(tmp_path / "events.jsonl")


def cli(*args: str, capsys) -> tuple[int, str]:
    code = main(["logs", "verify", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_real_log_verifies(log, capsys):
    report = report_of(log)
    assert report.ok and report.chained == report.lines == len(lines(log)) and report.writers == 1
    code, said = cli(str(log), capsys=capsys)
    assert code == 0 and f"verified {report.lines} lines in 1 chain" in said


def test_one_edited_byte_is_named(log, capsys):
    data = lines(log)
    at = next(i for i, line in enumerate(data) if b"/ws/f0.txt" in line)
    data[at] = data[at].replace(b"/ws/f0.txt", b"/ws/f9.txt")  # what ran, rewritten after
    log.write_bytes(b"".join(data))
    code, said = cli(str(log), capsys=capsys)
    assert code == 1 and f"FAILED {log}:{at + 1}: edited: its bytes do not match its hash" in said


def test_a_deleted_line_is_named(log, capsys):
    data = lines(log)
    del data[5]
    log.write_bytes(b"".join(data))
    code, said = cli(str(log), capsys=capsys)
    assert code == 1 and f"{log}:6: missing lines before this one" in said and "seq 5" in said


def test_two_swapped_lines_are_named(log):
    data = lines(log)
    data[2], data[3] = data[3], data[2]
    log.write_bytes(b"".join(data))
    report = report_of(log)
    assert not report.ok and report.problems[0].line == 3
    assert "missing lines" in report.problems[0].what or "reordered" in report.problems[0].what


def test_an_inserted_line_is_named(log):
    data = lines(log)
    forged = json.loads(data[1])
    forged["event"] = "approval.resolved"
    data.insert(2, json.dumps(forged).encode() + b"\n")
    log.write_bytes(b"".join(data))
    report = report_of(log)
    assert not report.ok and report.problems[0].line == 3


def test_a_copied_line_is_named(log):
    data = lines(log)
    data.insert(4, data[2])
    log.write_bytes(b"".join(data))
    report = report_of(log)
    assert not report.ok and "reordered or repeated" in report.problems[0].what


def test_a_cut_short_file_is_a_torn_line_not_tampering(log, capsys):
    data = log.read_bytes()
    log.write_bytes(data[: len(data) - 40])  # a crash in the middle of the last write
    report = report_of(log)
    assert report.ok and len(report.torn) == 1 and "torn last line" in report.torn[0]
    code, said = cli(str(log), capsys=capsys)
    assert code == 0 and "torn last line" in said


def test_the_chain_runs_across_rotation(tmp_path):
    path = write_log(tmp_path / "events.jsonl", calls=30, max_bytes=4000, backup_count=50)
    from toolhooks.plugins.event_log import log_files

    files = log_files(path, include_rotated=True)
    assert len(files) > 3
    report = verify(files)
    assert report.ok and report.writers == 1
    first_of_second = json.loads(Path(files[1]).read_bytes().splitlines()[0])["chain"]
    last_of_first = json.loads(Path(files[0]).read_bytes().splitlines()[-1])["chain"]
    assert first_of_second["prev"] == last_of_first["hash"]  # one chain across the boundary
    Path(files[1]).unlink()  # a whole file gone in the middle
    assert not verify(log_files(path, include_rotated=True)).ok


def test_two_processes_appending_keep_a_chain_each(tmp_path):
    path = tmp_path / "events.jsonl"
    script = (
        "import sys; sys.path.insert(0, sys.argv[2]); "
        "from test_log_chain import write_log; from pathlib import Path; "
        "write_log(Path(sys.argv[1]), calls=20)"
    )
    here = str(Path(__file__).parent)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path), here]) for _ in range(2)]
    assert [p.wait(120) for p in procs] == [0, 0]
    report = report_of(path)
    assert report.ok and report.writers == 2 and report.chained == report.lines


def test_a_writer_killed_mid_run_leaves_a_verifiable_log(tmp_path, spawn):
    path = tmp_path / "events.jsonl"
    script = (
        "import sys, time; sys.path.insert(0, sys.argv[2]); "
        "from test_log_chain import write_log; from pathlib import Path; "
        "print('go', flush=True); write_log(Path(sys.argv[1]), calls=100000)"
    )
    writer = spawn(sys.executable, "-c", script, str(path), str(Path(__file__).parent))
    writer.wait_for("go")
    deadline = time.monotonic() + 60
    while (not path.exists() or path.stat().st_size < 50_000) and time.monotonic() < deadline:
        time.sleep(0.01)
    writer.sigkill()
    write_log(path, calls=2)  # a restarted agent appends after the crash
    report = report_of(path)
    assert report.ok, [str(p) for p in report.problems]  # a crash is not tampering
    assert report.writers == 2


def test_a_keyed_log_checks_its_checkpoints_and_a_wrong_key_fails(tmp_path, capsys):
    key_file = tmp_path / "log.key"
    key_file.write_bytes(os.urandom(32).hex().encode())
    path = write_log(tmp_path / "events.jsonl", calls=6, key_file=str(key_file), checkpoint_every=5)
    report = report_of(path, read_key(str(key_file)))
    assert report.ok and report.checkpoints >= 2
    code, said = cli(str(path), "--key-file", str(key_file), capsys=capsys)
    assert code == 0
    wrong = tmp_path / "wrong.key"
    wrong.write_bytes(b"not-the-key-" * 4)
    code, said = cli(str(path), "--key-file", str(wrong), capsys=capsys)
    assert code == 1 and "bad checkpoint" in said


def test_without_a_key_a_full_rewrite_is_not_detected_and_with_one_it_is(tmp_path):
    """The threat model, as RELIABILITY.md states it."""
    from toolhooks.plugins.event_log._chain import Chain

    key_file = tmp_path / "log.key"
    key_file.write_bytes(b"k" * 32)
    for keyed in (False, True):
        path = write_log(
            tmp_path / f"events-{keyed}.jsonl", calls=3, key_file=str(key_file) if keyed else None
        )
        rebuilt = Chain()  # the forger's own chain, with no key
        forged = []
        for raw in lines(path):
            record = json.loads(raw)
            record.pop("chain")
            if record.get("event") == "tool.started":
                record["params"] = {"path": "/etc/shadow"}
            forged.append(rebuilt.link(json.dumps(record, separators=(",", ":")).encode() + b"\n"))
        path.write_bytes(b"".join(forged))
        report = report_of(path, read_key(str(key_file)) if keyed else None)
        assert report.ok is (not keyed)


_VALID: list[bytes] = []


def valid_log(tmp_path_factory) -> list[bytes]:
    """One real log, made once: every example mutates the same bytes (hypothesis needs that)."""
    if not _VALID:
        _VALID.extend(lines(write_log(tmp_path_factory.mktemp("valid") / "events.jsonl", 2)))
    return _VALID


@given(st.data())
@settings(max_examples=60)
def test_any_single_line_mutation_fails_verification(tmp_path_factory, data):
    """Every mutation is reported: as tampering (exit 1), or, for a line cut so that it looks
    like a crash's torn write, as a torn line (RELIABILITY.md: a crash and a cut are alike)."""
    original = valid_log(tmp_path_factory)
    path = tmp_path_factory.mktemp("prop") / "events.jsonl"
    index = data.draw(st.integers(0, len(original) - 1))
    kind = data.draw(st.sampled_from(["byte", "delete", "duplicate", "swap"]))
    mutated = list(original)
    if kind == "byte":
        line = bytearray(original[index])
        at = data.draw(st.integers(0, len(line) - 2))  # not the newline
        new = data.draw(st.integers(32, 126).filter(lambda b: b != line[at]))
        line[at] = new
        mutated[index] = bytes(line)
    elif kind == "delete":
        if index == len(original) - 1:
            index -= 1  # the end of a chain is not marked (RELIABILITY.md): delete inside it
        del mutated[index]
    elif kind == "duplicate":
        mutated.insert(index, original[index])
    else:
        other = data.draw(st.integers(0, len(original) - 1).filter(lambda i: i != index))
        mutated[index], mutated[other] = mutated[other], mutated[index]
    path.write_bytes(b"".join(mutated))
    report = report_of(path)
    assert not report.ok or report.torn, (kind, index)


def test_an_export_verifies_on_its_own_and_an_edit_inside_it_is_named(tmp_path, capsys):
    from toolhooks.plugins.event_log import export, log_files

    path = write_log(tmp_path / "events.jsonl", calls=6)
    records = [json.loads(raw) for raw in lines(path)]
    middle = records[len(records) // 2]["ts"]
    bundle = tmp_path / "bundle.jsonl"
    code = main(["logs", "export", str(path), "--since", str(_iso(middle))])
    assert code == 0
    bundle.write_bytes(capsys.readouterr().out.encode())
    excerpt = lines(bundle)
    assert json.loads(excerpt[0])["event"] == "log.export"
    assert 1 < len(excerpt) < len(records)
    assert not verify([str(bundle)]).ok  # a header is only an excerpt's when one is meant
    report = verify([str(bundle)], excerpt=True)
    assert report.ok and report.chained == len(excerpt) - 1
    assert report.lines == len(excerpt) - 1
    # The header names the hash just before the excerpt, as the full log has it.
    head = json.loads(excerpt[0])["heads"]
    first = json.loads(excerpt[1])["chain"]
    assert head[first["writer"]]["hash"] == first["prev"]
    edited = [*excerpt[:2], excerpt[2].replace(b'"s"', b'"x"'), *excerpt[3:]]
    bundle.write_bytes(b"".join(edited))
    assert not verify([str(bundle)], excerpt=True).ok
    assert list(export(log_files(path), None, None))[1:] == lines(path)  # everything, unchanged


def _iso(ts: float) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ts, timezone.utc).isoformat()


def test_doctor_checks_the_chain(tmp_path, monkeypatch, capsys):
    path = write_log(tmp_path / "events.jsonl", calls=2)
    config = tmp_path / "toolhooks.toml"
    config.write_text(f'[plugins.event_log]\npath = "{path}"\n')
    monkeypatch.chdir(tmp_path)
    main(["doctor", "--config", str(config), "--json"])
    checks = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["log chain"]["status"] == "ok" and "verified" in checks["log chain"]["detail"]
    data = lines(path)
    data[1] = data[1].replace(b'"s"', b'"x"')
    path.write_bytes(b"".join(data))
    main(["doctor", "--config", str(config), "--json"])
    checks = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["log chain"]["status"] == "error" and "tampering" in checks["log chain"]["detail"]


def test_logs_and_the_desk_show_the_chain_state(tmp_path, capsys):
    path = write_log(tmp_path / "events.jsonl", calls=2)
    main(["logs", "--file", str(path)])
    assert "log chain: verified" in capsys.readouterr().err
    pytest.importorskip("fastapi", reason="the desk needs the web extra")
    from toolhooks.web._calls import CallLog

    desk = CallLog(path)
    assert desk.chain().startswith("hash chain verified")
    data = lines(path)
    data[2] = data[2].replace(b'"s"', b'"x"')
    path.write_bytes(b"".join(data))
    main(["logs", "--file", str(path)])
    assert f"log chain: the log shows tampering at {path}:3" in capsys.readouterr().err
    assert desk.chain().startswith("the log shows tampering")
