"""`python -m kubenb notebooks --execute` and `python -m kubenb tour`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from kubenb import cli
from tests.notebooks.conftest import ROOT, LazyModule, skip_without

skip_without("nbformat", "nbclient")
nbformat = LazyModule("nbformat")


def _notebook(path: Path, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in sources]
    nbformat.write(nb, path)
    return path


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.skipif(os.name != "posix", reason="kernels use TCP where there are no Unix sockets")
def test_notebooks_execute_prints_no_kernel_transport_warning(tmp_path: Path) -> None:
    """The kernels talk over Unix sockets: no "running over TCP without encryption" warning
    for a newcomer to read as an error. The warning comes once per kernel, so one notebook
    shows it (the other test here runs several)."""
    src = tmp_path / "src"
    src.mkdir()
    _notebook(src / "01_one.ipynb", "print('one')")
    run = subprocess.run([sys.executable, "-m", "kubenb", "notebooks", "--execute", "--dir",
                          str(src), "--out", str(tmp_path / "out")], capture_output=True,
                         text=True, timeout=110,
                         env=dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep
                                  + os.environ.get("PYTHONPATH", "")))
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("  ok ") == 1
    assert "without encryption" not in run.stderr + run.stdout
    assert "WARNING" not in run.stderr, run.stderr


def _listening(host: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((host, 0))
    sock.listen()
    return sock


def test_tour_port_takes_the_next_free_port_when_the_default_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with _listening() as taken:
        port = taken.getsockname()[1]
        monkeypatch.setattr(cli, "TOUR_PORT", port)
        chosen = cli.tour_port("127.0.0.1", None)
        assert chosen != port and chosen > port and cli.port_is_free("127.0.0.1", chosen)


def test_tour_port_keeps_the_default_when_it_is_free(monkeypatch: pytest.MonkeyPatch) -> None:
    port = cli.free_port()
    monkeypatch.setattr(cli, "TOUR_PORT", port)
    assert cli.tour_port("127.0.0.1", None) == port


def test_tour_on_a_port_the_user_chose_and_is_taken_fails_saying_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("jupyterlab")
    with _listening() as taken:
        port = taken.getsockname()[1]
        assert cli.main(["tour", "--port", str(port), "--no-browser"]) == 1
    err = capsys.readouterr().err
    assert f"port {port} on 127.0.0.1 is in use" in err and "--port" in err


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


@pytest.mark.slow
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
