"""Every example of docs/testing.md passes, run as the guide says: its named blocks
(```python test_x.py, ```ini pytest.ini) are written as files of a project and run by
pytest with the plugin. Its plain ```python blocks run in tests/test_docs.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.testing import INNER_ARGS

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "testing.md"
NAMED_BLOCK = re.compile(r"^```(?:python|ini) (\S+)\n(.*?)^```", re.S | re.M)
TEST_FUNCTION = re.compile(r"^def test_", re.M)


def guide_files() -> dict[str, str]:
    """The guide's named blocks: file name -> content (a name may appear once)."""
    files: dict[str, str] = {}
    for name, code in NAMED_BLOCK.findall(GUIDE.read_text()):
        assert name not in files, f"docs/testing.md names {name} twice"
        files[name] = code
    return files


def test_the_guide_has_a_project_to_run() -> None:
    files = guide_files()
    assert {"pytest.ini", "conftest.py", "greeter.py", "test_greeter.py",
            "test_shout_controller.py", "test_official_client.py",
            "test_lightkube.py"} <= set(files)


@pytest.mark.slow  # a kopf operator in a subprocess, and one in a thread
def test_the_guide_examples_pass(pytester: pytest.Pytester) -> None:
    files = guide_files()
    for name, code in files.items():
        (pytester.path / name).write_text(code)
    tests = sum(len(TEST_FUNCTION.findall(code)) for code in files.values())
    # In a process of its own: an in-process run forgets afterwards the modules it
    # imported, and the official client's models, imported again by a later test of
    # this worker, would no longer be the classes its other models check against.
    result = pytester.runpytest_subprocess(*INNER_ARGS)
    result.assert_outcomes(passed=tests)
