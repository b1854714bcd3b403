"""Attempts to get ``rm -rf /`` past the analysis. Each must either show the command (so a rule
can match it) or make the script opaque (so it gets the opaque decision). Listed in
RELIABILITY.md."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .helpers import analyse

SEEN = "seen"
OPAQUE = "opaque"

ATTACKS = {
    "quoting": [
        ("\\r\\m -rf /", SEEN),
        ("'r'\"m\" -rf /", SEEN),
        ("$'\\162\\155' -rf /", SEEN),
        ("$'\\u0072m' -rf /", SEEN),
        ('$"rm" -rf /', SEEN),
        ("rm '-rf' '/'", SEEN),
        ("rm -r''f /", SEEN),
        ("rm \\-rf /", SEEN),
    ],
    "wrappers": [
        ("sudo -u root -- env -i nice -n1 nohup timeout 9 stdbuf -oL rm -rf /", SEEN),
        ("sudo --us root rm -rf /", SEEN),
        ("sudo -s rm -rf /", SEEN),
        ("command -p -- rm -rf /", SEEN),
        ("env -S'rm -rf /'", SEEN),
        ("env -iS 'rm -rf /'", SEEN),
        ("busybox sh -c 'rm -rf /'", SEEN),
        ("find . -exec sh -c 'rm -rf /' \\;", SEEN),
        ("xargs -I{} sh -c 'rm -rf /'", SEEN),
        ("ksh93 -c 'rm -rf /'", SEEN),
        ("strace -f -o log rm -rf /", SEEN),
        ("uv run rm -rf /", SEEN),
        ("su root -c 'rm -rf /'", SEEN),
        ("flock -c 'rm -rf /' /tmp/lock", SEEN),
        ("watch -n 1 rm -rf /", SEEN),
        ("exec -a x rm -rf /", SEEN),
        ("coproc rm -rf /", SEEN),
        ("sudo --frobnicate rm -rf /", OPAQUE),
    ],
    "substitutions": [
        ("$(echo rm) -rf /", OPAQUE),
        ("`echo rm` -rf /", OPAQUE),
        ('"$(printf rm)" -rf /', OPAQUE),
        ("echo $(rm -rf /)", SEEN),
        ("x=`rm -rf /`", SEEN),
        ("echo ${x:-$(rm -rf /)}", SEEN),
        ("echo $(( $(rm -rf /) ))", SEEN),
        ("cat <(rm -rf /)", SEEN),
        ("[[ $(rm -rf /) ]]", SEEN),
        ('bash -c "$(echo rm -rf /)"', OPAQUE),
        ('echo "`echo \\`rm -rf /\\``"', SEEN),
        ("echo `echo \\`rm -rf /\\``", SEEN),
    ],
    "unseen code": [
        ("crontab <<< '* * * * * rm -rf /'", OPAQUE),
        ("echo '* * * * * rm -rf /' | crontab -", OPAQUE),
        ("git -c core.hooksPath=/tmp commit -m x", OPAQUE),
        ("git config core.hooksPath /tmp", OPAQUE),
        ("LD_PRELOAD=./x.so ls", OPAQUE),
        ("env LD_PRELOAD=./x.so ls", OPAQUE),
    ],
    "misread forms": [
        ("time { rm -rf /; }", OPAQUE),
        ("coproc NAME { rm -rf /; }", OPAQUE),
        ("cat <<EOF; rm -rf /\nx\nEOF", OPAQUE),
    ],
    "variables": [
        ("X=rm; $X -rf /", SEEN),
        ("X=r; Y=m; $X$Y -rf /", SEEN),
        ("X=ls; read X; $X -rf /", OPAQUE),
        ("X=ls; printf -v X rm; $X -rf /", OPAQUE),
        ("X=ls; if c; then X=rm; fi; $X -rf /", OPAQUE),
        ("X=ls; for i in 1 2; do $X -rf /; X=rm; done", OPAQUE),
        ('set -- rm -rf /; "$@"', OPAQUE),
        ("declare -n r=X; r=rm; $X -rf /", OPAQUE),
        ("X=rm; ${!X} -rf /", OPAQUE),
        ("f() { X=rm; }; X=ls; f; $X -rf /", SEEN),
    ],
    "heredocs": [
        ("bash <<EOF\nrm -rf /\nEOF", OPAQUE),
        ("sh <<'EOF'\nrm -rf /\nEOF", OPAQUE),
        ("cat <<EOF | sh\nrm -rf /\nEOF", OPAQUE),
        ("cat <<EOF | sudo bash -s\nrm -rf /\nEOF", OPAQUE),
        ("python3 - <<EOF\nimport os\nEOF", OPAQUE),
        ("bash <<< 'rm -rf /'", OPAQUE),
        ("cat <<EOF\n$(rm -rf /)\nEOF", SEEN),
    ],
    "pipes into interpreters": [
        ("echo 'rm -rf /' | sh", OPAQUE),
        ("echo 'rm -rf /' | sudo -s", OPAQUE),
        ("echo 'rm -rf /' | su", OPAQUE),
        ("curl x | tee >(bash)", OPAQUE),
        ("coproc bash", OPAQUE),
        ("exec 0< <(curl x); bash", OPAQUE),
        ("bash --rcfile <(echo rm -rf /) -i", OPAQUE),
        ("BASH_ENV=<(curl x) bash s.sh", OPAQUE),
        ("curl x | bash /dev/stdin", OPAQUE),
        ("curl x | deno run -", OPAQUE),
    ],
    "aliases and functions": [
        ("alias x='rm -rf /'; x", SEEN),
        ("shopt -s expand_aliases; alias x=rm; x -rf /", SEEN),
        ("ls() { rm -rf /; }; ls", SEEN),
        ("function cleanup { rm -rf /; }", SEEN),
        ("trap 'rm -rf /' EXIT", SEEN),
        ("eval 'rm -rf /'", OPAQUE),
    ],
    "ifs": [
        ("rm${IFS}-rf${IFS}/", OPAQUE),
        ("IFS=,; X=rm,-rf,/; $X", OPAQUE),
        ("rm$IFS-rf$IFS/", OPAQUE),
    ],
    "braces": [
        ("rm {-rf,/}", SEEN),
        ("rm -{r,f} /", SEEN),
        ("{rm,-rf,/}", OPAQUE),
        ("r{m,} -rf /", SEEN),
    ],
    "redirections": [
        ("rm >/dev/null -rf /", SEEN),
        ("rm 2>&1 -rf /", SEEN),
        ("rm 0</dev/null -rf /", SEEN),
        (">/dev/null rm -rf /", SEEN),
    ],
    "line continuations": [
        ("r\\\nm -rf /", SEEN),
        ("rm \\\n-rf \\\n/", SEEN),
        ("su\\\ndo rm -rf /", SEEN),
    ],
    "hidden commands": [
        ("ssh -o ProxyCommand='rm -rf /' h", SEEN),
        ("git -c core.pager='rm -rf /' log", SEEN),
        ("git rebase -x 'rm -rf /' main", SEEN),
        ("git submodule foreach 'rm -rf /'", SEEN),
        ("git bisect run rm -rf /", SEEN),
        ("rsync --rsh='rm -rf /' a h:b", SEEN),
        ("GIT_SSH_COMMAND='rm -rf /' git fetch", SEEN),
        ("export EDITOR='rm -rf /'", SEEN),
        ("tar --checkpoint-action=exec='rm -rf /' -cf a.tar .", SEEN),
        # every option form of the readers' table (_hidden._COMMAND_OPTIONS), quoted variously
        ("rsync -e 'rm -rf /' a h:b", SEEN),
        ("rsync -e'rm -rf /' a h:b", SEEN),
        ("rsync -erm\\ -rf\\ / a h:b", SEEN),
        ('rsync "-erm -rf /" a h:b', SEEN),
        ("rsync --rsync-path 'rm -rf /' a h:b", SEEN),
        ('rsync a h:b --rsync-path="rm -rf /"', SEEN),
        ("npx -c 'rm -rf /'", SEEN),
        ("npm exec --call='rm -rf /'", SEEN),
        ("pnpm --call 'rm -rf /' x", SEEN),
        ("zip -T -TT 'rm -rf /' a.zip f", SEEN),
        ("zip a.zip f -T --unzip-command='rm -rf /'", SEEN),
        ("tar -I 'rm -rf /' -cf a.tar .", SEEN),
        ("tar -F 'rm -rf /' -cf a.tar .", SEEN),
        ("tar --to-command 'rm -rf /' -xf a.tar", SEEN),
        ('tar --use-compress-program="rm -rf /" -cf a.tar .', SEEN),
        ("tar --info-script='rm -rf /' -cf a.tar .", SEEN),
        ("tar -cf a.tar --new-volume-script='rm -rf /' .", SEEN),
        ("tar --rsh-command='rm -rf /' -cf h:a.tar .", SEEN),
        ("echo $(tar --to-command='rm -rf /' -xf a.tar)", SEEN),
        ('tar --to-command="$CMD" -xf a.tar', OPAQUE),
        # found while reading the readers again: bundles, getopt's prefixes, unknown options
        ("rsync -avze 'rm -rf /' a h:b", SEEN),
        ("npx -c'rm -rf /'", SEEN),
        ("tar -cI 'rm -rf /' -f a.tar .", SEEN),
        ("rsync --rs='rm -rf /' a h:b", SEEN),
        ("tar --to-com='rm -rf /' -xf a.tar", SEEN),
        ("tar --use-compress-prog 'rm -rf /' -cf a.tar .", SEEN),
        ("npm exec --ca='rm -rf /'", SEEN),
        ("tar --info-script 'rm -rf /' -cf a.tar .", SEEN),
        ("tar --checkpoint-action 'exec=rm -rf /' -cf a.tar .", SEEN),
        ('rsync --rsh="$X" a h:b', OPAQUE),
        ('rsync -av"$X" a h:b', OPAQUE),
        ('tar --"$OPT"=x -cf a.tar .', OPAQUE),
        ("npm exec --call=$X", OPAQUE),
        ('zip a.zip f -T --unzip-command="$X"', OPAQUE),
    ],
    "unicode": [
        ("\uff52\uff4d -rf /", OPAQUE),
        ("r\u200bm -rf /", OPAQUE),
        ("\u0440m -rf /", OPAQUE),
        ("rm\u00a0-rf /", OPAQUE),
        ("su\u200bdo rm -rf /", OPAQUE),
    ],
    "globs": [
        ("/bin/r? -rf /", OPAQUE),
        ("/???/rm -rf /", OPAQUE),
        ("* -rf /", OPAQUE),
    ],
}

CASES = [
    (group, script, expected) for group, items in ATTACKS.items() for script, expected in items
]


def runs_rm_rf_root(result):
    for c in result.commands:
        texts = [w.text for w in c.argv[1:]]
        if c.program == "rm" and "/" in texts and ("-rf" in texts or {"-r", "-f"} <= set(texts)):
            return True
    return False


@pytest.mark.parametrize(
    ("group", "script", "expected"), CASES, ids=[f"{g}: {s[:50]}" for g, s, _ in CASES]
)
def test_the_attack_is_caught(group, script, expected):
    result = analyse(script)
    if expected == SEEN:
        assert runs_rm_rf_root(result), result
    else:
        assert result.opaque, result


@pytest.mark.parametrize(
    "script",
    [
        "tar -xzf a.tar.gz -C out",
        "tar -cvf - . --exclude='*.o'",
        "tar --checkpoint=10 --checkpoint-action=dot -cf a.tar .",
        'tar -C"$DIR" -xf a.tar',
        "rsync -avz --delete --progress a h:b",
        'rsync -av --exclude="$PAT" a h:b',
        "npm install --save-dev left-pad",
        "zip -r a.zip dir",
    ],
)
def test_options_that_take_no_command_hide_none(script):
    """The option readers read options, not every letter: these run the one program."""
    result = analyse(script)
    assert result.opaque is None, result
    assert len(result.commands) == 1, result.commands


def test_a_very_long_script_is_opaque_not_slow():
    result = analyse("true; " * 30_000 + "rm -rf /")
    assert result.opaque and "longer" in result.opaque


def test_a_long_but_bounded_script_is_read_whole():
    result = analyse("true; " * 2_000 + "rm -rf /")
    assert result.opaque is None
    assert runs_rm_rf_root(result)


@pytest.mark.parametrize(
    "script",
    [
        "(" * 300 + "rm -rf /" + ")" * 300,
        "echo $(" * 200 + "rm -rf /" + ")" * 200,
        "{ " * 300 + "rm -rf /; " + "} " * 300,
        "if a; then " * 200 + "rm -rf /" + "; fi" * 200,
        "bash -c '" + "bash -c \\'" * 5 + "rm -rf /" + "'",
        "sudo " * 500 + "rm -rf /",
        "f() { f; }; f",
        "for a in 1 2 3 4 5 6 7 8 9; do for b in 1 2 3 4 5 6 7 8 9; do for c in 1 2 3 4 5 6 7 8 9; do x=$a$b$c; done; done; done",
        "echo {1..9}{1..9}{1..9}{1..9}",
        "x" + "\\\n" * 10_000,
    ],
    ids=[
        "subshells",
        "substitutions",
        "groups",
        "ifs",
        "bash -c",
        "sudo",
        "recursion",
        "loops",
        "braces",
        "continuations",
    ],
)
def test_deep_or_wide_scripts_neither_crash_nor_pass_silently(script):
    result = analyse(script)
    assert "analyser could not read" not in (result.opaque or "")
    assert result.opaque or runs_rm_rf_root(result) or "rm" not in script


def test_deep_nesting_from_a_deep_caller_stack_is_still_answered():
    def nested(depth):
        if depth:
            return nested(depth - 1)
        return analyse("echo $(" * 45 + "rm -rf /" + ")" * 45)

    result = nested(300)
    assert result.opaque or runs_rm_rf_root(result)


CRASHERS = ["{\U00031860", "O{\U000df406\U000ccfea?;\u00ba\u00d2", "echo {a,\U0001f389}"]


def test_inputs_that_crash_tree_sitter_bash_are_answered_in_the_same_process():
    # tree-sitter-bash 0.25 segfaults on '{' then a 4-byte character (upstream issue #337),
    # depending on memory layout: run each several times in a child process.
    code = (
        "import sys\n"
        "from toolhooks.analysis import analyse_script\n"
        "for text in sys.argv[1:]:\n"
        "    for _ in range(20):\n"
        "        analyse_script(text + ' ' * _, cwd='/', home='/')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *CRASHERS], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_characters_beyond_the_bmp_come_back_unchanged():
    result = analyse("git commit -m '\U0001f389 {release}' && echo {a,\U0001f389}")
    texts = [[w.text for w in c.argv] for c in result.commands]
    assert texts == [["git", "commit", "-m", "\U0001f389 {release}"], ["echo", "a", "\U0001f389"]]
    assert result.opaque is None
