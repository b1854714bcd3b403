"""pytest collects ``*.cases.toml`` policy test files: one test item per ``[[case]]``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ._cases import SUFFIX, Case, load_cases, run_case


class CaseFailed(Exception):
    """A case got another decision than it expects."""


class CaseFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        for case in load_cases(self.path):
            yield CaseItem.from_parent(self, name=case.name, case=case)


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        result = run_case(self.case)
        if result.problem is not None:
            raise CaseFailed(result.problem)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFailed):
            return f"{self.case.where} {self.case.name}: {excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.case.line - 1, f"case: {self.case.name}"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    if file_path.name.endswith(SUFFIX):
        return CaseFile.from_parent(parent, path=file_path)
    return None
