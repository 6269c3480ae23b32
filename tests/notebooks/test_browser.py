"""The tour and the dashboard in a real browser: JupyterLab under headless Chromium.

Debian's `chromium` driven by Playwright (its Python client; no browser download)
opens JupyterLab, runs every cell of 01_tour and 03_widgets, and checks what the
reader sees: the ResourceTable shows rows, its row count changes while the churn
runs, and the PipelineView's counters move. Screenshots go to artifacts/browser/.
Skips (saying what is missing) without chromium, playwright or jupyterlab; `.ci/run`
installs all three.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb import cli
from tests.notebooks.conftest import NOTEBOOKS, ROOT

CHROMIUM = shutil.which("chromium")
SHOTS = ROOT / "artifacts" / "browser"
# Background connections are refused on a closed network; keep Chromium quiet.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]

if CHROMIUM is None:
    pytest.skip("no `chromium` on PATH (apt-get install chromium; .ci/run does)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright's Python client is missing "
                                      "(pip install playwright; .ci/run does)")
pytest.importorskip("jupyterlab", reason="needs the notebook extra: pip install -e '.[notebook]'")

JS_KERNEL_STATUS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k ? k.status : null; }"""

JS_READ = """() => {
  const value = (sel, attr) => { const e = document.querySelector(sel);
                                 return e ? e.getAttribute(attr) : null; };
  return { rowCount: value('.kubenb-row-count-value', 'data-count'),
           rows: document.querySelectorAll('.kubenb-resource-table tr.kubenb-row').length,
           handlerCalls: value('.kubenb-counter-handlers-calls', 'data-value'),
           fifoPopped: value('.kubenb-counter-fifo-popped', 'data-value'),
           gone: value('.kubenb-counter-reflector-gone', 'data-value'),
           text: document.body.innerText }; }"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """JupyterLab (the tour's flags) over a copy of the notebooks: the browser's
    autosaves never touch the checkout. Yields the base URL with its token."""
    work = tmp_path_factory.mktemp("lab")
    for name in ("01_tour.ipynb", "03_widgets.ipynb"):
        shutil.copy(NOTEBOOKS / name, work / name)
    settings = work / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(work / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"),
               JUPYTER_RUNTIME_DIR=str(work / "runtime"),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    port, token = cli.free_port(), secrets.token_hex(16)
    with open(work / "jupyter-lab.log", "w") as log:
        proc = subprocess.Popen(cli.lab_command(work, port, token), cwd=work, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    try:
        cli.wait_for_lab(f"http://127.0.0.1:{port}/api/status?token={token}", proc, 90)
        yield f"http://127.0.0.1:{port}|{token}"
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _open_and_run_all(page: Any, lab: str, notebook: str) -> None:
    base, token = lab.split("|")
    # A workspace per notebook, reset: the other test's notebook is not restored beside it.
    workspace = notebook.split(".")[0]
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{notebook}?reset&token={token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_function(f"({JS_KERNEL_STATUS})() === 'idle'", timeout=90_000)
    # Not awaited: the command's promise resolves only when every cell has run, and the
    # tests watch the page while the cells run.
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


def _printed(page: Any, text: str) -> bool:
    """Whether a cell's output (not its source) shows `text`."""
    return page.locator(".jp-OutputArea-output", has_text=text).count() > 0


def _finish(page: Any, name: str) -> dict[str, Any]:
    """Wait for the last cell's message, take the screenshots, return what is shown."""
    page.locator(".jp-OutputArea-output", has_text="all kubenb threads stopped").first.wait_for(
        state="attached", timeout=120_000)
    page.wait_for_function(f"({JS_KERNEL_STATUS})() === 'idle'", timeout=60_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    final = page.evaluate(JS_READ)
    assert "Traceback" not in final["text"], final["text"][-3000:]
    assert "Error displaying widget" not in final["text"]
    return final


@pytest.fixture
def page(lab: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS,
                                    headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        try:
            yield page
        finally:
            browser.close()


@pytest.mark.timeout(240)
def test_tour_runs_in_jupyterlab_and_its_pipeline_shows_the_410(page: Any, lab: str) -> None:
    _open_and_run_all(page, lab, "01_tour.ipynb")
    page.wait_for_selector(".kubenb-pipeline .kubenb-counter-fifo-popped", timeout=90_000,
                           state="attached")
    samples = []
    while not _printed(page, "all kubenb threads stopped"):
        samples.append(page.evaluate(JS_READ))
        page.wait_for_timeout(100)
        assert len(samples) < 1500, "the tour never finished"
    final = _finish(page, "01_tour")
    page.locator(".kubenb-pipeline").first.screenshot(path=str(SHOTS / "01_tour-pipeline.png"))
    assert page.locator(".kubenb-stepper").count() == 1
    popped = [int(s["fifoPopped"]) for s in samples if s["fifoPopped"] is not None]
    gone = [int(s["gone"]) for s in samples if s["gone"] is not None]
    assert int(final["fifoPopped"]) > popped[0], popped          # the counters moved ...
    assert gone[0] == 0 and int(final["gone"]) >= 1, gone         # ... through the 410


@pytest.mark.timeout(240)
def test_dashboard_table_rows_change_while_churn_runs(page: Any, lab: str) -> None:
    _open_and_run_all(page, lab, "03_widgets.ipynb")
    page.wait_for_selector(".kubenb-resource-table tr.kubenb-row", timeout=90_000,
                           state="attached")
    page.wait_for_selector(".kubenb-pipeline .kubenb-counter-handlers-calls", timeout=90_000,
                           state="attached")
    samples = []
    # Sample what the browser shows until the churn cell reports; no cell is touched.
    while not _printed(page, "row counts seen"):
        samples.append(page.evaluate(JS_READ))
        page.wait_for_timeout(300)
        assert len(samples) < 400, "the churn cell never finished"
    page.screenshot(path=str(SHOTS / "03_widgets-churn.png"), full_page=True)
    final = _finish(page, "03_widgets")
    page.locator(".kubenb-resource-table").first.screenshot(
        path=str(SHOTS / "03_widgets-table.png"))
    counts = {int(s["rowCount"]) for s in samples if s["rowCount"] is not None}
    calls = [int(s["handlerCalls"]) for s in samples if s["handlerCalls"] is not None]
    assert max(s["rows"] for s in samples) > 0                      # the table shows rows
    assert len(counts) > 1, counts                                  # ... and their count moves
    assert calls and int(final["handlerCalls"]) > calls[0]          # pipeline counters move
