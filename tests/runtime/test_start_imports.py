"""What a runtime leaves for first use: the default approval store and the approvals' modules are
made and imported when a call needs an approval, not at start (issue #44 item 4), and a call
that needs one still pauses into a memory store built from the config."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from toolhooks import MemoryStore, Runtime, hookimpl

START_AND_CALL = textwrap.dedent(
    """
    import sys
    from toolhooks import Runtime, hookimpl

    class Asks:
        @hookimpl
        def before_tool_call(self, call):
            if call.name == "write":
                return {"require_approval": {"title": "Write?", "description": "writes"}}
            return None

    rt = Runtime(
        plugins=[Asks()], config={}, load_entrypoints=False, approver=lambda pending: "defer"
    )
    late = ("toolhooks.stores._contract", "toolhooks.stores._memory", "toolhooks.approvals._gate",
            "toolhooks.approvals._pause", "toolhooks.approvals._resume")
    paused = late[:4]
    rt.call({"name": "read", "params": {}}, execute=lambda p: "text")
    assert not [m for m in late if m in sys.modules], [m for m in late if m in sys.modules]
    assert rt._context._store is None
    out = rt.call({"name": "write", "params": {}}, execute=lambda p: "done")
    assert out.status == "pending", out
    assert [m for m in paused if m not in sys.modules] == []
    assert rt.approvals.get(out.pending.id).state == "pending"
    resumed = rt.resume(out.pending.id, "allow-once", execute=lambda p: "done")
    assert resumed.status == "ok" and resumed.content == "done", resumed
    assert "toolhooks.approvals._resume" in sys.modules
    rt.close()
    """
)


def test_a_call_without_approval_imports_no_store_and_one_with_approval_still_pauses():
    done = subprocess.run(
        [sys.executable, "-c", START_AND_CALL], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_the_default_store_is_made_once_from_the_config_at_first_use():
    class Asks:
        @hookimpl
        def before_tool_call(self, call):
            return {"require_approval": {"title": "Run?", "description": "always"}}

    config = {"approvals": {"retention_s": 123.0}}
    with Runtime(
        plugins=[Asks()], config=config, load_entrypoints=False, approver=lambda p: "defer"
    ) as rt:
        store = rt.approvals
        assert isinstance(store, MemoryStore)
        assert store.retention_s == 123.0
        assert rt.approvals is store
        out = rt.call({"name": "t", "params": {}}, execute=lambda p: "ran")
        assert out.status == "pending"
        assert store.get(out.pending.id).state == "pending"
        assert rt._context.shared_store is False


def test_a_given_store_is_used_at_once_and_is_not_shared_when_it_is_a_memory_store():
    store = MemoryStore()
    with Runtime(config={}, load_entrypoints=False, approval_store=store) as rt:
        assert rt.approvals is store
        assert rt._context.shared_store is False


COMPILED_AT_START = textwrap.dedent(
    """
    import builtins, sys
    compiled = []

    def seen(frame, event, arg):
        if event == "c_call" and arg in (builtins.exec, builtins.eval, builtins.compile):
            caller = frame.f_back.f_code.co_name if frame.f_back else ""
            compiled.append(f"{frame.f_code.co_filename}:{caller}")

    sys.setprofile(seen)
    from toolhooks import Runtime
    rt = Runtime.from_config(sys.argv[1])
    rt.call({"name": "exec", "params": {"command": "git status"}}, execute=lambda p: "text")
    rt.close()
    sys.setprofile(None)
    print("\\n".join(compiled))
    """
)


def test_a_start_on_the_starter_policy_compiles_no_dataclass_init_repr_eq_or_hash(tmp_path):
    """The public records write their ``__init__`` and get the other methods from
    ``dataclass_methods``: ``@dataclass`` compiles none of them (each about 0.8 M instructions)
    in a start on the starter policy; only a frozen record's ``__setattr__`` and
    ``__delattr__``, which it compiles whatever it is asked."""
    from toolhooks.plugins.rules import starter_policy

    config = tmp_path / "toolhooks.toml"
    config.write_text(starter_policy("deny-list"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", COMPILED_AT_START, str(config)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    made = [line.rsplit(":", 1)[1] for line in done.stdout.splitlines() if "dataclasses" in line]
    assert made, "the test sees what dataclasses compiles"
    assert not {"_init_fn", "_repr_fn", "_cmp_fn", "_hash_fn"} & set(made), made


STARTER_CALL = textwrap.dedent(
    """
    import sys
    from toolhooks import Runtime
    rt = Runtime.from_config(sys.argv[1])
    rt.call({"name": "exec", "params": {"command": "git status"}}, execute=lambda p: "text")
    rt.close()
    print(" ".join(sorted(sys.modules)))
    """
)


def test_a_start_on_the_starter_policy_imports_what_it_does_not_use_later(tmp_path):
    """The call ids' and the log chain's random prefixes come from ``os.urandom`` (what
    ``secrets.token_hex`` returns), and a failing handler's frames are formatted by a
    ``traceback`` imported then: neither module (with ``random`` and ``textwrap``, 9 M
    instructions) is imported by a start that needs neither; nor are the modules of the public
    records it does not build (about 1.7 M instructions a frozen dataclass). The entry-point cache is warm, as
    on a user's machine after the first run (a scan imports ``importlib.metadata``, which
    imports both)."""
    from toolhooks.plugins.rules import starter_policy

    work = tmp_path / "work"
    work.mkdir()
    config = work / "toolhooks.toml"
    config.write_text(starter_policy("deny-list"), encoding="utf-8")
    env = {**os.environ, "TOOLHOOKS_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TOOLHOOKS_CONFIG", None)
    settled = time.time() - 60  # the scan is kept only for folders older than 2 s
    runs = []
    for _ in range(3):  # the first makes the event log's folder, the second writes the cache
        runs.append(
            subprocess.run(
                [sys.executable, "-c", STARTER_CALL, str(config)],
                capture_output=True,
                text=True,
                check=False,
                cwd=work,
                env=env,
            )
        )
        os.utime(work, (settled, settled))  # the same mtime: it is in the cache's key
    done = runs[-1]
    assert done.returncode == 0, done.stderr
    imported = set(done.stdout.split())
    assert "importlib.metadata" not in imported, "the cache was not used"
    assert "toolhooks.plugins.event_log._chain" in imported
    assert not {"secrets", "random", "traceback", "textwrap"} & imported
    assert not {"shlex", "glob", "hmac", "base64"} & imported  # imported where used
    assert "orjson" not in imported  # (dev venv: for the log's lines past its 256th)
    late_records = {  # public records the start does not build: their classes are not made
        "toolhooks.records._decisions",  # Decision, ApprovalDecision
        "toolhooks.loading._info",  # PluginInfo, HandlerInfo
        "toolhooks.stores._provenance",
        "toolhooks.plugins.event_log._stats",
        "toolhooks.plugins.result_budget._artifact_page",
    }
    assert not late_records & imported, late_records & imported
