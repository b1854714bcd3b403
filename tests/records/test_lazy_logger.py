"""The lazy ``toolhooks`` logger: no ``import logging`` until something is logged, and the same
records as ``logging.getLogger(name)`` once it is."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

from toolhooks.records._log import LazyLogger


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60
    )


def test_debug_and_info_import_nothing_and_a_warning_reaches_the_last_resort_handler():
    done = run(
        """
        import sys
        from toolhooks.records._log import LazyLogger
        log = LazyLogger("toolhooks")
        log.info("config: %s", "none")
        log.debug("quiet")
        print("logging" in sys.modules)
        log.warning("plugin %r skipped", "x", extra={"toolhooks_unlocked": "x"})
        print("logging" in sys.modules)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
    assert done.stderr.strip() == "plugin 'x' skipped"


def test_info_reaches_a_handler_configured_before_or_after_the_logger_was_made():
    done = run(
        """
        from toolhooks.records._log import LazyLogger
        log = LazyLogger("toolhooks")
        import logging
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s %(message)s")
        log.info("config: %s", "none")
        log.debug("dropped by the level")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "INFO toolhooks config: none"


def test_it_is_the_named_logger(caplog):
    log = LazyLogger("toolhooks.test_lazy")
    with caplog.at_level(logging.DEBUG, logger="toolhooks.test_lazy"):
        log.debug("a %s", 1)
        log.info("b")
        log.error("c", exc_info=ValueError("boom"))
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("toolhooks.test_lazy", "DEBUG", "a 1"),
        ("toolhooks.test_lazy", "INFO", "b"),
        ("toolhooks.test_lazy", "ERROR", "c"),
    ]
    assert log.getEffectiveLevel() == logging.getLogger("toolhooks.test_lazy").getEffectiveLevel()
