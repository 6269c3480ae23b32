"""Every ```python block in README.md and docs/ runs and its asserts hold."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def blocks():
    for path in DOCS:
        for n, match in enumerate(BLOCK.finditer(path.read_text()), 1):
            yield pytest.param(match.group(1), id=f"{path.relative_to(ROOT)}#{n}")


@pytest.mark.slow  # most examples start an embedded cluster of their own
@pytest.mark.parametrize("code", list(blocks()))
def test_doc_example_runs(code):
    exec(compile(code, "<doc>", "exec"), {"__name__": "__doc_example__"})


def test_docs_have_examples():
    assert len(list(blocks())) >= 8
