"""``toolhooks serve`` as a user runs it: a real process, its first-start token, named tokens,
loopback by default, one-line errors, and a command line that does not load FastAPI."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import httpx

from .conftest import SECRETS, child_env, start_serve, stop, to_toml


def _toolhooks(*args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "toolhooks", *args], cwd=cwd, env=env or child_env(),
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_first_start_prints_one_token_once_and_it_works(config, tmp_path, agent):
    toml = tmp_path / "toolhooks.toml"
    toml.write_text(to_toml(config))
    server = start_serve(toml, tmp_path, child_env())
    try:
        assert server.url.startswith("http://127.0.0.1:")
        said = "\n".join(server.lines)
        assert "shown once" in said and "(tokens: admin)" in said
        shown = next(i for i, line in enumerate(server.lines) if "shown once" in line)
        secret = server.lines[shown + 1]
        assert secret not in (tmp_path / ".toolhooks" / "desk-tokens.json").read_text()
        auth = {"authorization": f"Bearer {secret}"}
        assert httpx.get(server.url + "api/approvals").status_code == 401
        me = httpx.get(server.url + "api/me", headers=auth).json()
        assert me["name"] == "admin"
        paused = agent().call({"name": "write", "params": {"path": "a", "text": "b"}})
        decided = httpx.post(
            server.url + f"api/approvals/{paused.pending.id}/decision",
            json={"decision": "allow-once"},
            headers={**auth, "x-csrf-token": me["csrf_token"]},
        )
        assert decided.status_code == 200 and decided.json()["approval"]["decided_by"] == "admin"
    finally:
        stop(server.process)
    added = _toolhooks("serve", "--add-token", "bob", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    bob = added.stdout.strip().splitlines()[-1]
    again = start_serve(toml, tmp_path, child_env())
    try:
        assert not any("shown once" in line for line in again.lines)  # printed once, ever
        assert "(tokens: admin, bob)" in again.lines[-1]
        me = httpx.get(again.url + "api/me", headers={"authorization": f"Bearer {bob}"})
        assert me.json()["name"] == "bob"
    finally:
        stop(again.process)


def test_without_a_shared_store_serve_says_so_in_one_line(tmp_path):
    (tmp_path / "toolhooks.toml").write_text('[approvals]\nroute = "none"\n')
    done = _toolhooks("serve", "--port", "0", cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "[approvals] route" in done.stderr and "[state] url" in done.stderr


def test_a_busy_port_and_a_bad_host_are_one_line_errors(served, tmp_path):
    port = int(served.url.rsplit(":", 1)[1].strip("/"))
    env = child_env(TOOLHOOKS_DESK_TOKENS=f"ops={SECRETS['alice']}")
    busy = _toolhooks(
        "serve", "--config", "toolhooks.toml", "--port", str(port), cwd=tmp_path, env=env
    )
    assert busy.returncode == 1 and "cannot listen" in busy.stderr
    assert "Traceback" not in busy.stderr
    bad = _toolhooks(
        "serve", "--config", "toolhooks.toml", "--host", "example.org", cwd=tmp_path, env=env
    )
    assert bad.returncode == 1 and "--host must be an IP address" in bad.stderr


def test_bad_desk_tokens_in_the_environment_are_one_line_errors(served, tmp_path):
    bad = _toolhooks("serve", "--config", "toolhooks.toml", "--port", "0", cwd=tmp_path,
                     env=child_env(TOOLHOOKS_DESK_TOKENS="ops=short"))  # fmt: skip
    assert bad.returncode == 1 and "TOOLHOOKS_DESK_TOKENS" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_serve_is_a_command_and_the_cli_does_not_import_fastapi(tmp_path):
    probe = (
        "import sys, contextlib, io\n"
        "from toolhooks.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    main(['--help'])\n"
        "print(json.dumps({'help': out.getvalue(), 'loaded': sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('fastapi', 'uvicorn', 'jinja2', 'starlette'))}))\n"
    )
    done = subprocess.run([sys.executable, "-c", "import json\n" + probe], cwd=tmp_path,
                          env=child_env(), capture_output=True, text=True, timeout=60)  # fmt: skip
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert "serve" in found["help"] and found["loaded"] == []


def test_loopback_by_default(served):
    host = served.url.split("//", 1)[1].rsplit(":", 1)[0]
    assert host == "127.0.0.1"
    with socket.create_connection(("127.0.0.1", int(served.url.rsplit(":", 1)[1].strip("/"))), 5):
        pass


def test_serve_answers_to_its_address_and_the_allowed_names_only(config, tmp_path):
    """DNS rebinding against the real server: a Host it was not told of gets 421."""
    toml = tmp_path / "toolhooks.toml"
    toml.write_text(to_toml(config))
    tokens = ",".join(f"{name}={secret}" for name, secret in SECRETS.items())
    server = start_serve(
        toml, tmp_path, child_env(TOOLHOOKS_DESK_TOKENS=tokens), "--allow-host", "Desk.Internal"
    )
    try:
        auth = {"authorization": f"Bearer {SECRETS['alice']}"}
        port = server.url.rsplit(":", 1)[1].strip("/")
        url = server.url + "api/me"
        for host, status in [
            (f"127.0.0.1:{port}", 200),
            (f"localhost:{port}", 200),
            (f"desk.internal:{port}", 200),
            (f"rebind.attacker.example:{port}", 421),
        ]:
            answer = httpx.get(url, headers={**auth, "host": host}, timeout=30)
            assert answer.status_code == status, host
    finally:
        stop(server.process)


def test_tls_needs_both_files(tmp_path):
    done = _toolhooks("serve", "--port", "0", "--tls-cert", "c.pem", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "--tls-cert and --tls-key go together" in done.stderr
