"""Wrappers are seen through, their own options (and option values) skipped."""

from __future__ import annotations

import pytest

from .helpers import analyse, seen

RM = ["rm", "-rf", "/"]

WRAPPED = [
    "sudo rm -rf /",
    "sudo -u root -g wheel rm -rf /",
    "sudo -uroot rm -rf /",
    "sudo --user=root rm -rf /",
    "sudo --user root rm -rf /",
    "sudo -E -H -n rm -rf /",
    "sudo -- rm -rf /",
    "doas -u root rm -rf /",
    "env rm -rf /",
    "env -i A=1 B=2 rm -rf /",
    "env -u HOME -C /tmp rm -rf /",
    "env -S 'rm -rf' /",
    "env -S'rm -rf /'",
    "env --split-string='rm -rf /'",
    "A=1 B=2 rm -rf /",
    "command rm -rf /",
    "command -p rm -rf /",
    "builtin command rm -rf /",
    "exec rm -rf /",
    "exec -a name rm -rf /",
    "nice rm -rf /",
    "nice -n 10 rm -rf /",
    "nice -10 rm -rf /",
    "nohup rm -rf /",
    "time rm -rf /",
    "time -p rm -rf /",
    "timeout 5 rm -rf /",
    "timeout -s KILL -k 1 5 rm -rf /",
    "stdbuf -oL -e 0 rm -rf /",
    "xargs rm -rf /",
    "xargs -n 1 -P 4 rm -rf /",
    "find . -exec rm -rf / \\;",
    "find . -execdir rm -rf / +",
    "find . -ok rm -rf / \\;",
    "su -c 'rm -rf /'",
    "su root -c 'rm -rf /'",
    "su - root -c 'rm -rf /'",
    "su --command='rm -rf /' root",
    "runuser -u root -- rm -rf /",
    "runuser -l root -c 'rm -rf /'",
    "sh -c 'rm -rf /'",
    "bash -c 'rm -rf /'",
    "bash -lc 'rm -rf /'",
    "bash -e -x -c 'rm -rf /'",
    "zsh -c 'rm -rf /'",
    "dash -c 'rm -rf /'",
    "ksh -c 'rm -rf /'",
    "/bin/bash -c 'rm -rf /'",
    "bash -c \"bash -c 'rm -rf /'\"",
    "busybox rm -rf /",
    "busybox sh -c 'rm -rf /'",
    "setsid rm -rf /",
    "setsid -f rm -rf /",
    "watch rm -rf /",
    "watch -n 5 'rm -rf /'",
    "watch -x rm -rf /",
    "flock /tmp/lock rm -rf /",
    "flock -w 5 /tmp/lock -c 'rm -rf /'",
    "flock -c 'rm -rf /' /tmp/lock",
    "chroot /mnt rm -rf /",
    "chroot --userspec=a:b /mnt rm -rf /",
    "pkexec rm -rf /",
    "pkexec --user root rm -rf /",
    "script -c 'rm -rf /' /dev/null",
    "script -q -c 'rm -rf /'",
    "sudo env A=1 nice -n 5 timeout 3 bash -c 'exec rm -rf /'",
    "/usr/bin/sudo /bin/rm -rf /",
    "ionice -c 3 rm -rf /",
    "taskset 0x1 rm -rf /",
    "coproc rm -rf /",
]


@pytest.mark.parametrize("script", WRAPPED)
def test_the_wrapped_command_is_seen(script):
    result = analyse(script)
    assert any(
        c.program == "rm" and [w.text for w in c.argv][1:3] == RM[1:] for c in result.commands
    ), result


def test_the_wrapper_is_recorded_in_via():
    result = analyse("sudo env nice rm -rf /")
    rm = next(c for c in result.commands if c.program == "rm")
    assert rm.via == ("sudo", "env", "nice")


def test_bash_c_is_recorded_in_via():
    rm = next(c for c in analyse("bash -c 'rm x'").commands if c.program == "rm")
    assert rm.via == ("bash -c",)


def test_command_v_runs_nothing():
    assert not seen("command -v rm", ["rm"])
    assert not seen("command -V rm", ["rm"])


def test_sudo_with_an_unknown_long_option_is_opaque():
    assert analyse("sudo --frobnicate rm -rf /").opaque is not None


def test_sudo_chdir_changes_the_inner_folder():
    rm = next(c for c in analyse("sudo -D /etc rm passwd").commands if c.program == "rm")
    assert "/etc" in rm.cwds


def test_xargs_input_is_an_unknown_word():
    rm = next(c for c in analyse("ls | xargs rm").commands if c.program == "rm")
    assert rm.argv[-1].text is None


def test_find_exec_braces_are_unknown_and_as_a_program_opaque():
    rm = next(c for c in analyse("find . -exec rm {} +").commands if c.program == "rm")
    assert rm.argv[-1].text is None
    assert analyse("find . -exec {} \\;").opaque is not None


def test_git_global_options_with_values_are_marked():
    result = analyse("git -C /tmp -c user.name=x --git-dir=.g --work-tree w push --force")
    git = result.commands[0]
    texts = [w.text for w in git.argv]
    assert [texts[i] for i in git.option_values] == ["/tmp", "user.name=x", "w"]
    assert git.cwd == "/tmp"


def test_env_assignments_are_kept_on_the_command():
    rm = next(c for c in analyse("A=1 env B=2 rm x").commands if c.program == "rm")
    assert [w.text for w in rm.assignments] == ["A=1", "B=2"]
