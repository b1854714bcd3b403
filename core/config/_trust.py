"""Whether a config file may be used: toolhooks' policy comes from it, so a file another user
can write (or replace) is never read as ours.

Stdlib only, no ``pathlib``: the hook client runs this on every tool call while it looks for
its config (``toolhooks.agents._project``). See docs/decisions/config-ownership.md.
"""

from __future__ import annotations

import os


def untrusted_config(path: str) -> str | None:
    """Why the config file ``path`` must not be used, or None: it belongs to another user than
    this one or root, or others (group or world) can write it, or its folder lets others replace
    it (writable by them without the sticky bit). A project under ``/tmp`` would otherwise pick
    up another user's ``toolhooks.toml`` there (issue #32 item 2)."""
    try:
        info = os.stat(path)
        folder = os.stat(os.path.dirname(os.path.abspath(path)))
    except OSError as error:
        return f"it cannot be read: {error.strerror or error}"
    getuid = getattr(os, "getuid", None)
    if getuid is not None and info.st_uid not in (getuid(), 0):
        return f"it belongs to another user (uid {info.st_uid}), not to you or root"
    if _others_write(info):
        return f"others can write it (mode {info.st_mode & 0o777:o}; chmod go-w to use it)"
    if _others_write(folder) and not folder.st_mode & 0o1000:
        mode = f"{folder.st_mode & 0o777:o}"
        return f"others can replace it: its folder is writable by them (mode {mode})"
    if getuid is not None and folder.st_uid not in (getuid(), 0):
        return f"its folder belongs to another user (uid {folder.st_uid}), not to you or root"
    return None


def world_writable(path: str) -> str | None:
    """Why a config named on purpose (``--config``, ``$TOOLHOOKS_CONFIG``) must not be used, or
    None: naming it trusts its owner, but not everyone else who could change it."""
    try:
        info = os.stat(path)
    except OSError as error:
        return f"it cannot be read: {error.strerror or error}"
    if _others_write(info):
        return f"others can write it (mode {info.st_mode & 0o777:o}; chmod go-w to use it)"
    return None


def _others_write(info: os.stat_result) -> bool:
    """Whether a user other than this one may write the file or folder ``info`` describes: the
    world, or a group that is not this user's own private group (``umask 002`` systems make
    every file group-writable for a group named after the user, with nobody else in it)."""
    if info.st_mode & 0o002:
        return True
    if not info.st_mode & 0o020:
        return False
    try:
        import grp
        import pwd

        me = pwd.getpwuid(os.getuid())
        group = grp.getgrgid(info.st_gid)
    except (ImportError, KeyError, OSError):
        return True
    private = info.st_gid == me.pw_gid and group.gr_name == me.pw_name
    return not (private and set(group.gr_mem) <= {me.pw_name})
