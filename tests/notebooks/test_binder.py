"""binder/ stays in step with pyproject.toml and opens a notebook that exists."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kubenb import cli
from tests.notebooks.conftest import ROOT

tomllib = pytest.importorskip("tomllib", reason="Python >= 3.11 reads pyproject.toml")

BINDER = ROOT / "binder"
COPY_CONFIG = 'cp binder/jupyter_server_config.py "$HOME/.jupyter/jupyter_server_config.py"'


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower()


def test_binder_requirements_cover_the_runtime_and_notebook_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    wanted |= {_name(r) for r in project["optional-dependencies"]["notebook"]}
    lines = [line for line in (BINDER / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    listed = {_name(line) for line in lines}
    assert wanted == listed, (wanted - listed, listed - wanted)
    assert "ipykernel>=6,!=7.0.*" in lines  # 7.0.x drops output from background threads


def test_binder_post_build_installs_kubenb_and_opens_the_tour(tmp_path) -> None:
    post_build = BINDER / "postBuild"
    assert post_build.stat().st_mode & 0o111, "postBuild must be executable"
    script = post_build.read_text()
    assert "pip install --no-cache-dir --no-deps -e ." in script
    assert COPY_CONFIG in script
    config = (BINDER / "jupyter_server_config.py").read_text()
    match = re.search(r'TOUR = "(.+?)"', config)
    assert match and (ROOT / match.group(1)).is_file()
    assert subprocess.run(["bash", "-n", str(post_build)]).returncode == 0  # parses
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.(1[0-9])", runtime)


def _start_like_repo2docker(front_end: str, config_dir: Path, tmp: Path, port: int,
                            token: str) -> subprocess.Popen[bytes]:
    """`jupyter lab` / `jupyter notebook` in the repository root, as the binder image runs
    it, with the user config postBuild leaves in ~/.jupyter."""
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config_dir),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"))
    cmd = [sys.executable, "-m", "jupyter", front_end, "--no-browser",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize(("front_end", "module", "landing"), [
    ("lab", "jupyterlab", "/lab/tree/notebooks/01_tour.ipynb"),
    ("notebook", "notebook", "/notebooks/notebooks/01_tour.ipynb"),
])
def test_the_binder_server_opens_on_the_tour(tmp_path: Path, front_end: str, module: str,
                                             landing: str) -> None:
    """The root URL redirects to the tour in JupyterLab 4 and in Notebook 7 (each front end
    has its own default_url, which overrides ServerApp's)."""
    pytest.importorskip(module)
    requests = pytest.importorskip("requests")
    config_dir = tmp_path / "home" / ".jupyter"
    config_dir.mkdir(parents=True)
    shutil.copy(BINDER / "jupyter_server_config.py", config_dir)  # what postBuild does
    port, token = cli.free_port(), "binder-test"
    proc = _start_like_repo2docker(front_end, config_dir, tmp_path, port, token)
    try:
        url = f"http://127.0.0.1:{port}/"
        cli.wait_for_lab(f"{url}api/status?token={token}", proc)
        answer = requests.get(url, params={"token": token}, timeout=60)
        assert answer.status_code == 200
        assert answer.history and answer.history[0].status_code in (301, 302)
        assert answer.url.split("?")[0] == f"http://127.0.0.1:{port}{landing}"
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
