"""The tour and the dashboard in a real browser: JupyterLab under headless Chromium.

Debian's `chromium` driven by Playwright (its Python client; no browser download)
opens JupyterLab. The tour is run one cell at a time at 1400x1000, as a learner runs it
(in JupyterLab, and in Notebook 7 where it is installed): after each chapter the nearest
picture lights the arrows the chapter names, no two of its texts overlap (the browser's
own text boxes), the moments a chapter stops on show in its cell's output, the counters
move through a 410, and a click in the widget leaves the active cell where it was. Then,
live as a reader leaves it, a click on a box opens its inspector, pause / step / resume
and "process next key" change the counts, and after the cleanup cell the buttons say
the cluster is closed. The dashboard (03_widgets) runs up to its cleanup: the table's
STATUS cells are coloured as their text says and changed rows are marked. No "Error
displaying widget" and no traceback anywhere.

Screenshots of the diagram, the tour's burst, the table and the controller view are
taken from the notebooks themselves into artifacts/browser/elements/, or into
docs/images/ (which docs/widgets.md shows) with KUBENB_REFRESH_DOC_IMAGES=1; full-page
shots go to artifacts/browser/. Skips (saying what is missing) without chromium,
playwright or jupyterlab; `.ci/run` installs all three.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from kubenb import cli
from tests.notebooks.conftest import NOTEBOOKS, ROOT

CHROMIUM = shutil.which("chromium")
SHOTS = ROOT / "artifacts" / "browser"
# The docs' screenshots are refreshed only when asked (a test run leaves the tree clean).
IMAGES = (ROOT / "docs" / "images" if os.environ.get("KUBENB_REFRESH_DOC_IMAGES")
          else SHOTS / "elements")
# Background connections are refused on a closed network; keep Chromium quiet.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
# What kubenb.widgets.table colours each status tone, as the browser computes it.
TONE_COLOURS = {"ok": "rgb(46, 125, 50)", "warn": "rgb(178, 106, 0)",
                "bad": "rgb(198, 40, 40)", "done": "rgb(117, 117, 117)"}

# One JupyterLab (the module's `lab`) serves every test here, on one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

if CHROMIUM is None:
    pytest.skip("no `chromium` on PATH (apt-get install chromium; .ci/run does)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright's Python client is missing "
                                      "(pip install playwright; .ci/run does)")
# Looked up, not imported: JupyterLab runs in its own process, and importing it here would
# cost every xdist worker seconds at collection.
if importlib.util.find_spec("jupyterlab") is None:
    pytest.skip("needs the notebook extra: pip install -e '.[notebook]'", allow_module_level=True)

JS_KERNEL_STATUS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k ? k.status : null; }"""

# Run every cell above the last (the optional cleanup), or only the last. Not awaited:
# the command's promise resolves when the cells have run, and the tests watch the page
# meanwhile.
JS_RUN_ALL_BUT_LAST = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  panel.content.activeCellIndex = panel.content.widgets.length - 1;
  window.jupyterapp.commands.execute('notebook:run-all-above'); }"""
JS_RUN_LAST = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  panel.content.activeCellIndex = panel.content.widgets.length - 1;
  window.jupyterapp.commands.execute('notebook:run-cell'); }"""

# Scroll the table's own box (not the page) to the first row that is not Running, or
# else the first changed row, so the screenshot shows colours and marks.
JS_SCROLL_TO_CHANGE = """() => {
  const cell = document.querySelector(
    '.kubenb-resource-table td.kubenb-status:not(.kubenb-status-ok)');
  const row = cell ? cell.closest('tr')
                   : document.querySelector('.kubenb-resource-table tr.kubenb-row-changed');
  if (!row) return;
  const box = row.closest('.kubenb-table-scroll');
  box.scrollTop = Math.max(row.offsetTop - 90, 0); }"""

JS_RUN_ALL = """() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }"""
# Every code cell has run (an execution count) and none is queued or running.
JS_ALL_RAN = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const code = panel.content.widgets.filter(c => c.model.type === 'code');
  return code.length > 0 && code.every(c => c.model.executionCount !== null
                                        && !c.node.classList.contains('jp-mod-pending')); }"""

JS_READ = """() => {
  const value = (name) => { const e = document.querySelector('.kubenb-counter-' + name);
                            return e ? e.getAttribute('data-value') : null; };
  const count = document.querySelector('.kubenb-row-count-value');
  return { rowCount: count ? count.getAttribute('data-count') : null,
           rows: document.querySelectorAll('.kubenb-resource-table tr.kubenb-row').length,
           changed: document.querySelectorAll('.kubenb-resource-table tr.kubenb-row-changed')
                      .length,
           status: Array.from(document.querySelectorAll('.kubenb-resource-table td.kubenb-status'))
                     .map(td => [td.textContent, td.className, getComputedStyle(td).color]),
           handlerCalls: value('handlers-calls'), fifoPopped: value('fifo-popped'),
           fifoDepth: value('fifo-depth'), gone: value('reflector-gone'),
           loop: value('informer-state'), steps: value('informer-steps'),
           processed: value('process-done'),
           hot: document.querySelectorAll('.kubenb-diagram svg .kubenb-arrow-hot').length,
           diagramStatus: (document.querySelector('.kubenb-diagram-status') || {}).innerText };
}"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """JupyterLab (the tour's flags) over a copy of the notebooks: the browser's
    autosaves never touch the checkout. Yields the base URL with its token."""
    work = tmp_path_factory.mktemp("lab")
    for path in NOTEBOOKS.glob("*.ipynb"):
        shutil.copy(path, work / path.name)
    shutil.copytree(NOTEBOOKS / "data", work / "data")  # 06's recordings
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
        # the same server also serves Notebook 7 (/notebooks/...): expose its app too
        command = [*cli.lab_command(work, port, token),
                   "--JupyterNotebookApp.expose_app_in_browser=True"]
        proc = subprocess.Popen(command, cwd=work, env=env,
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


def _open(page: Any, lab: str, notebook: str) -> None:
    base, token = lab.split("|")
    # A workspace per notebook, reset: the other test's notebook is not restored beside it.
    workspace = notebook.split(".")[0]
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{notebook}?reset&token={token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_function(f"({JS_KERNEL_STATUS})() === 'idle'", timeout=90_000)


def _printed(page: Any, text: str) -> bool:
    """Whether a cell's output (not its source) shows `text`."""
    return page.locator(".jp-OutputArea-output", has_text=text).count() > 0


def _wait_printed(page: Any, text: str, timeout: int = 120_000) -> None:
    page.locator(".jp-OutputArea-output", has_text=text).first.wait_for(
        state="attached", timeout=timeout)
    page.wait_for_function(f"({JS_KERNEL_STATUS})() === 'idle'", timeout=60_000)


def _read(page: Any) -> dict[str, Any]:
    return page.evaluate(JS_READ)


def _wait_value(page: Any, counter: str, test: str, timeout: int = 30_000) -> None:
    """Wait until the first `kubenb-counter-<counter>`'s data-value passes `test` (JS,
    on `v`)."""
    page.wait_for_function(
        f"() => {{ const e = document.querySelector('.kubenb-counter-{counter}');"
        f" if (!e) return false; const v = e.getAttribute('data-value'); return {test}; }}",
        timeout=timeout)


def _no_errors(page: Any) -> None:
    text = page.evaluate("() => document.body.innerText")
    assert "Traceback" not in text, text[-3000:]
    assert "Error displaying widget" not in text


def _shoot(page: Any, selector: str, name: str) -> None:
    """An element screenshot into IMAGES (docs/images/ when refreshing the docs)."""
    IMAGES.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": 2400})  # the whole widget fits
    try:
        element = page.locator(selector).first
        element.scroll_into_view_if_needed()
        element.screenshot(path=str(IMAGES / name))
    finally:
        page.set_viewport_size(size)


def _wait_text(page: Any, selector: str, text: str, timeout: int = 30_000) -> None:
    """Wait until the first `selector` shows `text`; fail saying what it shows."""
    try:
        page.wait_for_function(
            "([s, t]) => { const e = document.querySelector(s);"
            " return !!e && e.innerText.includes(t); }", arg=[selector, text], timeout=timeout)
    except sync_api.TimeoutError:
        shown = page.evaluate("(s) => Array.from(document.querySelectorAll(s))"
                              ".map(e => e.innerText)", selector)
        raise AssertionError(f"{selector} never showed {text!r}; it shows {shown!r}") from None


def _cleanup_and_check_closed(page: Any) -> None:
    """Run the optional last cell; then the buttons must say the cluster is closed."""
    page.evaluate(JS_RUN_LAST)
    _wait_printed(page, "all kubenb threads stopped")
    page.locator("button.kubenb-diagram-pause").first.click()
    _wait_text(page, ".kubenb-diagram-status", "cluster.close()")
    page.locator("button.kubenb-server-drop-watches").first.click()
    _wait_text(page, ".kubenb-server-last-action", "server is stopped")


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


def _click_through_the_live_tour(page: Any) -> None:
    """The tour has run up to its cleanup: what a reader does with the live widget
    then. Ends by running the cleanup, after which the buttons say the cluster is
    closed."""
    # a click on a box in the picture opens its inspector
    page.locator(".kubenb-diagram svg .kubenb-box-fifo").first.click()
    page.wait_for_selector(".kubenb-inspector-fifo", state="attached", timeout=30_000)

    # pause, let the churn fill the FIFO, step one key, resume
    page.locator("button.kubenb-diagram-pause").first.click()
    _wait_value(page, "informer-state", "v === 'paused'")
    page.locator(".kubenb-server-churn").first.click()
    _wait_value(page, "fifo-depth", "Number(v) > 0")
    before = _read(page)
    page.locator("button.kubenb-diagram-step").first.click()
    _wait_text(page, ".kubenb-diagram-status", "applied")
    _wait_value(page, "informer-steps", f"Number(v) === {int(before['steps']) + 1}")
    after = _read(page)
    assert int(after["fifoPopped"]) == int(before["fifoPopped"]) + 1, (before, after)
    page.wait_for_selector(".kubenb-diagram-step .kubenb-step-diff", state="attached")
    page.locator(".kubenb-server-churn").first.click()          # churn off
    page.locator("button.kubenb-diagram-resume").first.click()
    _wait_value(page, "informer-state", "v === 'running'")
    _wait_value(page, "fifo-depth", "v === '0'")

    # process one key: Process Item's count moves
    done = int(_read(page)["processed"])
    page.locator("button.kubenb-diagram-process-next").first.click()
    _wait_value(page, "process-done", f"Number(v) > {done}")
    page.locator(".kubenb-diagram svg .kubenb-box-workqueue").first.click()
    page.wait_for_selector(".kubenb-inspector-workqueue", state="attached", timeout=30_000)
    _no_errors(page)
    _shoot(page, ".kubenb-diagram", "diagram.png")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "01_tour.png"), full_page=True)

    _cleanup_and_check_closed(page)
    _no_errors(page)


@pytest.mark.timeout(300)
def test_dashboard_table_colours_and_marks_rows_while_churn_runs(page: Any, lab: str) -> None:
    from kubenb.widgets.table import status_tone

    _open(page, lab, "03_widgets.ipynb")
    page.evaluate(JS_RUN_ALL_BUT_LAST)
    page.wait_for_selector(".kubenb-resource-table tr.kubenb-row", timeout=90_000,
                           state="attached")
    page.wait_for_selector(".kubenb-pipeline .kubenb-counter-handlers-calls", timeout=90_000,
                           state="attached")
    samples = []
    shot = False
    # Sample what the browser shows until the churn cell reports; no cell is touched.
    while not _printed(page, "row counts seen"):
        sample = _read(page)
        samples.append(sample)
        tones = {status_tone(text) for text, _, _ in sample["status"]}
        if not shot and sample["changed"] and tones - {"ok"}:
            page.evaluate(JS_SCROLL_TO_CHANGE)
            _shoot(page, ".kubenb-resource-table", "table.png")  # Pending and marked rows
            shot = True
        page.wait_for_timeout(300)
        assert len(samples) < 400, "the churn cell never finished"
    _wait_printed(page, "reflector:")
    if not shot:
        _shoot(page, ".kubenb-resource-table", "table.png")
    final = _read(page)
    counts = {int(s["rowCount"]) for s in samples if s["rowCount"] is not None}
    calls = [int(s["handlerCalls"]) for s in samples if s["handlerCalls"] is not None]
    assert max(s["rows"] for s in samples) > 0                      # the table shows rows
    assert len(counts) > 1, (counts, len(samples), [s["rows"] for s in samples])  # it moves
    assert calls and int(final["handlerCalls"]) > calls[0]          # diagram counters move
    assert any(s["changed"] for s in samples)                       # changed rows marked
    seen = set()
    for sample in [*samples, final]:                                # colours follow status
        for text, css, colour in sample["status"]:
            tone = status_tone(text)
            seen.add(tone)
            assert f"kubenb-status-{tone}" in css and colour == TONE_COLOURS[tone], (
                text, css, colour)
    assert "ok" in seen and len(seen) > 1, seen
    _no_errors(page)

    # the controller view: the picture with the controller's half lit, and its queue
    page.locator(".kubenb-diagram svg .kubenb-box-process").first.click()
    page.wait_for_selector(".kubenb-inspector-process", state="attached", timeout=30_000)
    assert page.locator('.kubenb-diagram svg[data-lower="on"]').count() >= 1
    _shoot(page, ".kubenb-diagram", "controller.png")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "03_widgets.png"), full_page=True)

    _cleanup_and_check_closed(page)
    _no_errors(page)


# 01 and 03 are clicked through above; every other notebook must at least run whole in
# the browser, with its widgets drawn and no error on the page.
OTHER_NOTEBOOKS = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")
                         if p.name not in ("01_tour.ipynb", "03_widgets.ipynb"))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("notebook", OTHER_NOTEBOOKS)
def test_every_other_notebook_runs_whole_in_the_browser(page: Any, lab: str,
                                                        notebook: str) -> None:
    assert len(OTHER_NOTEBOOKS) >= 4  # 02, 04, 05, 06: an empty glob must not pass
    _open(page, lab, notebook)
    page.evaluate(JS_RUN_ALL)
    page.wait_for_function(JS_ALL_RAN, timeout=240_000)
    page.wait_for_function(f"({JS_KERNEL_STATUS})() === 'idle'", timeout=60_000)
    assert page.locator(".jp-OutputArea-output").count() > 0
    _no_errors(page)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
                          ", .jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, errors.first.inner_text()


# -- the tour as a learner meets it: one cell at a time ---------------------------------

# After the cell whose source holds the marker, the nearest picture (in the cell's own
# output, else the closest above it) has these arrows lit: what the chapter names.
CHAPTER_ARROWS = [
    ("configmaps.watch(resource_version=rv", {"list_watch", "add_object", "pop",
                                              "add_to_indexer", "store_key", "dispatch",
                                              "enqueue"}),
    ("cluster.server.churn(", {"list_watch", "add_object", "pop", "add_to_indexer",
                               "store_key", "dispatch", "enqueue", "get_next",
                               "get_by_key"}),
    ('for mode in ("x", "y", "z")', {"list_watch", "pop", "dispatch", "enqueue"}),
    ('configmaps.delete("queue-settings")', {"dispatch", "get_next", "get_by_key"}),
    ('controls.buttons["drop-watches"].click()\nwait_until', {"list_watch"}),
    ("controls.buttons[\"compact\"].click()", {"list_watch", "add_object"}),
    ('assert [o for k, o in processed if k == "default/web-flags"]', {"get_next",
                                                                      "get_by_key"}),
]

# After the cell whose source holds the marker, its own output shows this text in this
# element: a moment the chapter stops on.
CHAPTER_TEXT = [
    ("queue.snapshot().redo", ".kubenb-inspector-wq-processing", "added again"),
    ('configmaps.delete("queue-settings")', ".kubenb-process-last", "gone"),
]

# Run one cell and wait until it has run (NotebookActions resolve when it is done).
JS_RUN_CELL = """async (i) => {
  const panel = window.jupyterapp.shell.currentWidget;
  panel.content.activeCellIndex = i;
  await window.jupyterapp.commands.execute('notebook:run-cell');
  return panel.content.widgets[i].model.executionCount; }"""

# The nearest picture at or above cell i: its lit arrows and, measured by the browser
# (getBBox), every pair of texts drawn over each other.
JS_NEAREST_PICTURE = """(i) => {
  const cells = window.jupyterapp.shell.currentWidget.content.widgets;
  for (let j = i; j >= 0; j--) {
    const svgs = cells[j].node.querySelectorAll('.jp-OutputArea .kubenb-diagram-svg');
    if (!svgs.length) continue;
    const svg = svgs[svgs.length - 1];
    svg.scrollIntoView({block: 'center'});
    const hot = Array.from(svg.querySelectorAll('.kubenb-arrow-hot'))
                     .map(g => g.getAttribute('data-arrow'));
    const boxes = Array.from(svg.querySelectorAll('text')).map(t => {
      const b = t.getBBox(); return [t.textContent, b.x, b.y, b.x + b.width, b.y + b.height]; });
    const clash = [];
    for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
      const [p, q] = [boxes[a], boxes[b]];
      if (p[1] < q[3] - 0.5 && q[1] < p[3] - 0.5 && p[2] < q[4] - 0.5 && q[2] < p[4] - 0.5)
        clash.push([p[0], q[0]]);
    }
    return {cell: j, hot: hot, clash: clash, texts: boxes.length}; }
  return null; }"""

# Where the notebook's kernel imports kubenb from (run aside: no history, no cell).
JS_KUBENB_FILE = """async () => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  let out = '';
  const future = kernel.requestExecute({code: 'import kubenb; print(kubenb.__file__)',
                                        store_history: false});
  future.onIOPub = (msg) => { if (msg.header.msg_type === 'stream') out += msg.content.text; };
  await future.done;
  return out; }"""

JS_ACTIVE = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"


def _tour_cells() -> list[str]:
    nb = json.loads((NOTEBOOKS / "01_tour.ipynb").read_text())
    return ["".join(c["source"]) if c["cell_type"] == "code" else "" for c in nb["cells"]]


def _end_sessions(lab: str, notebook: str) -> None:
    """Shut down the kernel sessions of `notebook` (the server's REST API)."""
    base, token = lab.split("|")
    headers = {"Authorization": f"token {token}"}
    for session in requests.get(f"{base}/api/sessions", headers=headers, timeout=30).json():
        if session.get("path", "").endswith(notebook):
            requests.delete(f"{base}/api/sessions/{session['id']}", headers=headers,
                            timeout=60).raise_for_status()


def _open_notebook7(page: Any, lab: str, notebook: str) -> None:
    base, token = lab.split("|")
    page.goto(f"{base}/notebooks/{notebook}?token={token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_function(f"({JS_KERNEL_STATUS})() === 'idle'", timeout=90_000)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("front_end", ["jupyterlab", "notebook7"])
def test_tour_cell_by_cell_lights_what_each_chapter_names(lab: str, front_end: str) -> None:
    """A learner at 1400x1000 runs the tour one cell at a time (in JupyterLab, and in
    Notebook 7 where it is installed): after each chapter the nearest picture has the
    arrows the chapter names lit, and no two of its texts are drawn over each other;
    clicks in the picture do not change the active cell."""
    if front_end == "notebook7" and importlib.util.find_spec("notebook") is None:
        pytest.skip("Notebook 7 is not installed (pip install notebook)")
    sources = _tour_cells()
    checks = {}
    for marker, arrows in CHAPTER_ARROWS:
        found = [i for i, s in enumerate(sources) if marker in s]
        assert len(found) == 1, (marker, found)
        checks[found[0]] = arrows
    last = max(i for i, s in enumerate(sources) if s)  # the optional cleanup stays unrun
    _end_sessions(lab, "01_tour.ipynb")  # a fresh kernel: another test may have left one
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS,
                                    headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            if front_end == "notebook7":
                _open_notebook7(page, lab, "01_tour.ipynb")
            else:
                _open(page, lab, "01_tour.ipynb")
            where = page.evaluate(JS_KUBENB_FILE)   # this tree's kubenb, not an installed one
            assert where.strip() == str(ROOT / "kubenb" / "__init__.py"), where
            counters = []
            for i, source in enumerate(sources[:last]):
                if not source:
                    continue
                assert page.evaluate(JS_RUN_CELL, i) is not None, f"cell {i} did not run"
                page.wait_for_function(f"({JS_KERNEL_STATUS})() === 'idle'", timeout=60_000)
                counters.append(_read(page))
                picture = page.evaluate(JS_NEAREST_PICTURE, i)
                if picture is not None:
                    assert picture["texts"] > 40 and picture["clash"] == [], (i, picture)
                if i in checks:
                    want = checks[i]
                    try:
                        page.wait_for_function(
                            "([i, want]) => { const c = (" + JS_NEAREST_PICTURE + ")(i);"
                            " return !!c && want.every(a => c.hot.includes(a)); }",
                            arg=[i, sorted(want)], timeout=6_000)
                    except sync_api.TimeoutError:
                        raise AssertionError(
                            f"after cell {i} ({source.splitlines()[0]!r}) the picture "
                            f"lights {page.evaluate(JS_NEAREST_PICTURE, i)['hot']}, not "
                            f"all of {sorted(want)}") from None
                for marker, selector, text in CHAPTER_TEXT:
                    if marker in source:
                        page.wait_for_function(
                            "([i, s, t]) => Array.from(window.jupyterapp.shell.currentWidget"
                            ".content.widgets[i].node.querySelectorAll(s))"
                            ".some(e => e.textContent.includes(t))",
                            arg=[i, selector, text], timeout=10_000)
                if "cluster.server.churn(" in source and front_end == "jupyterlab":
                    IMAGES.mkdir(parents=True, exist_ok=True)
                    page.locator(".kubenb-diagram-picture-copy").last.screenshot(
                        path=str(IMAGES / "tour-burst.png"))
            _no_errors(page)

            # a click on the picture (and then on a button) leaves the active cell alone
            page.evaluate(f"() => {{ window.jupyterapp.shell.currentWidget.content"
                          f".activeCellIndex = {last}; }}")
            page.locator(".kubenb-diagram svg .kubenb-box-fifo").first.click()
            page.wait_for_selector(".kubenb-inspector-fifo", state="attached", timeout=30_000)
            page.locator("button.kubenb-diagram-inspect-fifo").first.click()
            page.wait_for_function("() => !document.querySelector('.kubenb-inspector-fifo')",
                                   timeout=30_000)
            assert page.evaluate(JS_ACTIVE) == last

            popped = [int(c["fifoPopped"]) for c in counters if c["fifoPopped"] is not None]
            gone = [int(c["gone"]) for c in counters if c["gone"] is not None]
            assert popped[-1] > popped[0], popped                  # the counters moved ...
            assert gone[0] == 0 and gone[-1] >= 1, gone             # ... through the 410
            if front_end == "jupyterlab":
                _click_through_the_live_tour(page)
            _no_errors(page)
        finally:
            browser.close()
