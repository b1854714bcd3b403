"""Paths: absolute, ``~`` expanded, ``..`` collapsed as text and after symlinks, cd followed."""

from __future__ import annotations

import os

from toolhooks.analysis import command_paths, normalise_path

from .helpers import HOME, analyse


def test_relative_paths_resolve_against_the_working_folder():
    assert normalise_path("a/../b", cwd="/w", home=HOME)[0] == "/w/b"
    assert normalise_path("~/x", cwd="/w", home=HOME)[0] == f"{HOME}/x"
    assert normalise_path("/a//b/./c", cwd="/w", home=HOME)[0] == "/a/b/c"


def test_dotdot_after_a_symlink_gives_both_forms(tmp_path):
    (tmp_path / "real" / "inner").mkdir(parents=True)
    (tmp_path / "work").mkdir()
    os.symlink(tmp_path / "real" / "inner", tmp_path / "work" / "link")
    forms = normalise_path("link/../secret", cwd=str(tmp_path / "work"), home=HOME)
    assert str(tmp_path / "work" / "secret") in forms
    assert str(tmp_path / "real" / "secret") in forms


def test_a_symlink_resolves_to_its_target(tmp_path):
    (tmp_path / "target").write_text("x")
    os.symlink(tmp_path / "target", tmp_path / "alias")
    assert str(tmp_path / "target") in normalise_path("alias", cwd=str(tmp_path), home=HOME)


def test_cd_and_pushd_move_the_folder_for_later_commands():
    result = analyse("cd /etc && cat passwd; pushd /var; cat log; popd; cat x")
    cats = [c for c in result.commands if c.program == "cat"]
    assert command_paths(cats[0])[0] == "/etc/passwd"
    assert command_paths(cats[1])[0] == "/var/log"
    assert command_paths(cats[2])[0] == "/etc/x"


def test_a_cd_that_may_fail_leaves_both_folders(tmp_path):
    result = analyse(f"cd {tmp_path}/missing; rm -rf src", cwd=str(tmp_path))
    rm = next(c for c in result.commands if c.program == "rm")
    paths = command_paths(rm)
    assert str(tmp_path / "missing" / "src") in paths
    assert str(tmp_path / "src") in paths


def test_cd_in_a_subshell_or_pipeline_does_not_leak():
    result = analyse("(cd /etc); cat a; cd /etc | true; cat b")
    assert [c.cwd for c in result.commands if c.program == "cat"] == ["/work/project"] * 2


def test_option_values_key_values_and_redirections_are_paths():
    result = analyse("dd if=.env of=/tmp/x --opt=~/y > out 2>/dev/null < in")
    paths = command_paths(result.commands[0])
    for expected in ("/work/project/.env", "/tmp/x", "/work/project/out", "/work/project/in"):
        assert expected in paths


def test_a_glob_counts_as_itself_and_each_match(tmp_path):
    (tmp_path / "a.env").write_text("")
    (tmp_path / "b.env").write_text("")
    result = analyse("cat *.env", cwd=str(tmp_path))
    word = result.commands[0].argv[1]
    assert word.text == "*.env"
    assert word.alternatives == (str(tmp_path / "a.env"), str(tmp_path / "b.env"))
    assert str(tmp_path / "a.env") in command_paths(result.commands[0])


def _directions(script: str) -> list[tuple[str, bool]]:
    """(target, only read) for each redirection of the script's last command."""
    last = analyse(script).commands[-1]
    return [(w.text or "", i in last.read_redirects) for i, w in enumerate(last.redirects)]


def test_a_redirection_says_whether_its_target_is_only_read():
    assert _directions("cat < a") == [("a", True)]
    assert _directions("< a cat") == [("a", True)]
    assert _directions("cat 0< a") == [("a", True)]
    assert _directions("cat < a > b") == [("a", True), ("b", False)]
    assert _directions("cat > b < a") == [("b", False), ("a", True)]
    assert _directions("cat >> b") == [("b", False)]
    assert _directions("cat <> a") == [("a", False)]  # opened for reading and writing
    assert _directions("cat &> a") == [("a", False)]
    assert _directions("cat >| a") == [("a", False)]
    # through a wrapper and from around a compound command, with the indexes kept in step
    assert _directions("sudo cat < a 2> e") == [("a", True), ("e", False)]
    assert _directions("{ cat; } < a > b") == [("a", True), ("b", False)]
    assert _directions("{ cat < c; } > b") == [("b", False), ("c", True)]


def test_a_word_gives_the_forms_of_its_text_and_of_realpath_whatever_the_shared_memo(tmp_path):
    """``./NAME`` read as ``NAME`` and a ``cwd/./x`` folder read as ``cwd`` (both quick ways of
    one decision) give what the text and ``os.path.realpath`` give, with or without the
    folders other words of the call resolved before, through a symlinked working folder too."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "secret").write_text("x")
    (tmp_path / "real" / "link").symlink_to(tmp_path / "real" / "secret")
    (tmp_path / "real" / "sub").mkdir()
    (tmp_path / "here").symlink_to(tmp_path / "real")
    words = ["./link", "link", "./secret", "./sub/link", "./.", "./", "./..", "./~", "sub/./x",
             "./sub/../link", ".//link", "x/./../link", "./missing", "/./" + str(tmp_path)[1:]]  # fmt: skip
    for cwd in (str(tmp_path / "here"), str(tmp_path / "real"), str(tmp_path / "here") + "/."):
        shared: dict[str, str] = {}
        for order in (words, list(reversed(words))):
            for word in order:
                joined = os.path.join(cwd, word)
                collapsed = os.path.normpath(joined)
                want = tuple(dict.fromkeys((collapsed, os.path.realpath(joined))))
                alone = normalise_path(word, cwd=cwd, home=HOME, folders={})
                assert alone == want, (cwd, word)
                assert normalise_path(word, cwd=cwd, home=HOME, folders=shared) == want
