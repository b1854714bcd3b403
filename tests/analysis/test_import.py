"""The grammar loads only when a script is analysed, never at ``import toolhooks``."""

from __future__ import annotations

import subprocess
import sys


def test_importing_toolhooks_and_the_analysis_does_not_load_tree_sitter():
    code = (
        "import sys, toolhooks, toolhooks.analysis\n"
        "assert 'tree_sitter' not in sys.modules, 'loaded at import'\n"
        "toolhooks.analysis.analyse_script('ls', cwd='/', home='/')\n"
        "assert 'tree_sitter' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
