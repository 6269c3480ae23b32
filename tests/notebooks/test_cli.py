"""`python -m kubenb notebooks --execute` and `python -m kubenb tour`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from kubenb import cli
from tests.notebooks.conftest import ROOT

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient", reason="needs the notebook extra: pip install -e '.[notebook]'")


def _notebook(path: Path, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in sources]
    nbformat.write(nb, path)
    return path


@pytest.mark.timeout(120)
def test_notebooks_execute_runs_each_against_an_embedded_kubeconfig(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    _notebook(src / "01_ok.ipynb",
              "import os, kubenb\n"
              "cluster = kubenb.connect()\n"
              "pods = cluster.resource('pods').list()['items']\n"
              "print('pods seen:', len(pods))\n"
              "cluster.close()")
    _notebook(src / "02_fails.ipynb", "x = 1", "assert x == 2, 'the reader was told 2'")
    out = tmp_path / "out"
    code = cli.main(["notebooks", "--execute", "--dir", str(src), "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 1
    assert "  ok " in printed.out and f"{out / '01_ok.ipynb'}" in printed.out
    assert "FAILED" in printed.out and "the reader was told 2" in printed.out
    assert f"executed copies are in {out}" in printed.out
    assert "1 of 2 notebook(s) failed" in printed.err
    ok = nbformat.read(out / "01_ok.ipynb", as_version=4)
    # The CLI's embedded server was seeded: the notebook saw its pods through KUBECONFIG.
    assert ok.cells[0].outputs[0]["text"].strip() == "pods seen: 12"
    failed = nbformat.read(out / "02_fails.ipynb", as_version=4)  # written even when failing
    assert failed.cells[1].outputs[0]["output_type"] == "error"


def test_notebooks_names_select_by_number_or_stem(tmp_path: Path) -> None:
    for name in ("01_a", "02_b", "03_c"):
        _notebook(tmp_path / f"{name}.ipynb", "pass")
    (tmp_path / ".hidden.ipynb").write_text("{}")
    assert [p.stem for p in cli.find_notebooks(tmp_path)] == ["01_a", "02_b", "03_c"]
    assert [p.stem for p in cli.find_notebooks(tmp_path, ["03", "01_a.ipynb"])] == [
        "01_a", "03_c"]


def test_notebooks_unknown_name_or_folder_says_what_exists(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _notebook(tmp_path / "01_a.ipynb", "pass")
    assert cli.main(["notebooks", "--execute", "--dir", str(tmp_path), "07"]) == 2
    assert "no notebook named 07" in capsys.readouterr().err
    assert cli.main(["notebooks", "--execute", "--dir", str(tmp_path / "nope")]) == 2
    assert f"no notebooks folder at {tmp_path / 'nope'}" in capsys.readouterr().err


def test_the_default_notebooks_folder_is_the_checkouts() -> None:
    assert cli.NOTEBOOKS_DIR == ROOT / "notebooks"
    assert (cli.NOTEBOOKS_DIR / cli.TOUR).is_file()


def test_lab_command_has_the_flags_the_tour_needs(tmp_path: Path) -> None:
    cmd = cli.lab_command(tmp_path, 8899, "t0k", open_browser=False)
    assert cmd[:4] == [sys.executable, "-m", "jupyter", "lab"]
    assert f"--ServerApp.root_dir={tmp_path}" in cmd and "--no-browser" in cmd
    assert "--LabApp.default_url=/lab/tree/01_tour.ipynb" in cmd
    assert ("--allow-root" in cmd) == (os.geteuid() == 0)


def test_tour_without_the_tour_notebook_says_where_it_looked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("jupyterlab")
    assert cli.main(["tour", "--dir", str(tmp_path), "--no-browser"]) == 2
    assert f"no 01_tour.ipynb in {tmp_path}" in capsys.readouterr().err


@pytest.mark.timeout(120)
def test_tour_starts_jupyterlab_on_the_tour_and_prints_its_url(tmp_path: Path) -> None:
    pytest.importorskip("jupyterlab")
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "kubenb", "tour", "--port", "0",
                             "--no-browser"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("kubenb tour: open http://127.0.0.1:"), line
        url = line.split("open ", 1)[1].strip()
        assert "/lab/tree/01_tour.ipynb?token=" in url
        with urllib.request.urlopen(url, timeout=30) as page:  # the token lets us in
            assert page.status == 200
        contents = url.replace("/lab/tree/", "/api/contents/")
        with urllib.request.urlopen(contents, timeout=30) as answer:  # root is notebooks/
            assert answer.status == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 0
