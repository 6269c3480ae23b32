"""Authentication methods: static and file tokens, basic auth, exec credential plugins.

Exec plugins are small Python scripts written into tmp_path (`FakePlugin`); their
behaviour is steered through a JSON file, and every run is recorded (argv, env,
KUBERNETES_EXEC_INFO), so tests assert what the plugin actually received.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import stat
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import requests
import trustme

from kubenb.client.auth import (
    Auth,
    BasicAuth,
    ExecAuth,
    TokenAuth,
    TokenFileAuth,
    _parse_rfc3339,
)
from kubenb.client.config import config_from_dict
from kubenb.client.rest import RESTClient
from kubenb.clock import FakeClock
from kubenb.errors import KubeConfigError
from kubenb.server import EmbeddedServer
from tests.client.conftest import kubeconfig_doc
from tests.helpers import assert_no_new_threads

V1 = "client.authentication.k8s.io/v1"
V1BETA1 = "client.authentication.k8s.io/v1beta1"

#: Every secret the tests hand out contains this marker, so output can be grepped for it.
SECRET_MARK = "s3cr3t"

_PLUGIN = '''#!{python}
"""A fake client-go credential plugin for kubenb's tests."""
import json, os, sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

state = Path({state!r})
runs = state / "runs"
n = (len(runs.read_text().splitlines()) if runs.exists() else 0) + 1
with runs.open("a") as f:
    f.write("run\\n")
(state / f"run-{{n}}.json").write_text(json.dumps({{
    "argv": sys.argv[1:],
    "exec_info": json.loads(os.environ.get("KUBERNETES_EXEC_INFO", "null")),
    "env": {{k: os.environ.get(k) for k in ("AWS_PROFILE", "KUBENB_PLUGIN_ENV", "HOME")}},
    "stdin_isatty": sys.stdin.isatty(),
}}))
b = json.loads((state / "behaviour.json").read_text())
token = b.get("prefix", "s3cr3t-exec-token") + "-" + str(n)
if b.get("fail"):
    print(json.dumps({{"apiVersion": "x", "status": {{"token": token}}}}))
    sys.stderr.write(b["fail"].replace("TOKEN", b.get("leak", "")))
    sys.exit(b.get("code", 1))
if b.get("sleep"):
    import time
    time.sleep(b["sleep"])
if "raw" in b:
    sys.stdout.write(b["raw"].replace("TOKEN", token))
    sys.exit(0)
status = {{}}
if b.get("token", True):
    status["token"] = b.get("fixed_token") or token
if "expires_in" in b:
    when = datetime.now(timezone.utc) + timedelta(seconds=b["expires_in"])
    status["expirationTimestamp"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
if b.get("cert"):
    status["clientCertificateData"] = (state / "client.crt").read_text()
    status["clientKeyData"] = (state / "client.key").read_text()
api = b.get("api_version") or json.loads(os.environ["KUBERNETES_EXEC_INFO"])["apiVersion"]
if b.get("stderr"):
    sys.stderr.write(b["stderr"])
print(json.dumps({{"apiVersion": api, "kind": "ExecCredential", "status": status}}))
'''


class FakePlugin:
    """An executable credential plugin in `directory`, steered by `set(...)`."""

    def __init__(self, directory: Path, name: str = "fake-plugin") -> None:
        self.state = directory / f"{name}-state"
        self.state.mkdir(parents=True)
        self.path = directory / name
        self.path.write_text(_PLUGIN.format(python=sys.executable, state=str(self.state)))
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR)
        self.set()

    def set(self, **behaviour: Any) -> FakePlugin:
        (self.state / "behaviour.json").write_text(json.dumps(behaviour))
        return self

    def give_cert(self, cert: trustme.LeafCert) -> None:
        (self.state / "client.crt").write_bytes(cert.cert_chain_pems[0].bytes())
        (self.state / "client.key").write_bytes(cert.private_key_pem.bytes())

    @property
    def runs(self) -> int:
        runs = self.state / "runs"
        return len(runs.read_text().splitlines()) if runs.exists() else 0

    def run_info(self, n: int) -> dict[str, Any]:
        return json.loads((self.state / f"run-{n}.json").read_text())

    def exec_config(self, api_version: str = V1, **extra: Any) -> dict[str, Any]:
        conf: dict[str, Any] = {"apiVersion": api_version, "command": str(self.path)}
        if api_version == V1:
            conf["interactiveMode"] = "Never"
        conf.update(extra)
        return conf


@pytest.fixture
def plugin(tmp_path: Path) -> FakePlugin:
    return FakePlugin(tmp_path)


@pytest.fixture(autouse=True)
def no_secrets_in_logs(caplog: pytest.LogCaptureFixture):
    """Every log line any test here produces is checked for secrets."""
    caplog.set_level(logging.DEBUG, logger="kubenb")
    yield
    for phase in ("setup", "call"):
        for record in caplog.get_records(phase):
            assert SECRET_MARK not in record.getMessage(), record.getMessage()


def _header(auth: Auth) -> str:
    headers: dict[str, str] = {}
    auth.apply(headers)
    return headers.get("Authorization", "")


def _assert_clean(*texts: object) -> None:
    for text in texts:
        assert SECRET_MARK not in str(text), text
        assert SECRET_MARK not in repr(text), text


# -- static methods ---------------------------------------------------------------------


def test_token_auth_sets_bearer_and_never_retries():
    auth = TokenAuth("s3cr3t-static\n")
    assert _header(auth) == "Bearer s3cr3t-static"
    assert auth.refresh_after_unauthorized() is False
    assert auth.kind == "token"
    assert isinstance(auth, Auth)
    _assert_clean(auth)


def test_token_auth_rejects_an_empty_token():
    with pytest.raises(KubeConfigError, match="empty"):
        TokenAuth("  ")


def test_basic_auth_header_is_base64_user_colon_password():
    auth = BasicAuth("admin", "s3cr3t-pw")
    value = _header(auth)
    assert value.startswith("Basic ")
    assert base64.b64decode(value[6:]) == b"admin:s3cr3t-pw"
    assert auth.refresh_after_unauthorized() is False
    assert "admin" in repr(auth)
    _assert_clean(auth)


# -- token files ---------------------------------------------------------------------


def test_token_file_is_rechecked_on_the_clock_and_reread_when_it_changes(tmp_path):
    path = tmp_path / "token"
    path.write_text("s3cr3t-one\n")
    clock = FakeClock()
    auth = TokenFileAuth(path, clock=clock, recheck_interval=1.0)
    assert _header(auth) == "Bearer s3cr3t-one"
    path.write_text("s3cr3t-two-longer\n")
    assert _header(auth) == "Bearer s3cr3t-one"  # not rechecked before the interval
    clock.step(1.0)
    assert _header(auth) == "Bearer s3cr3t-two-longer"
    _assert_clean(auth)


def test_token_file_rotation_by_rename_is_seen(tmp_path):
    """The kubelet swaps projected tokens atomically: a new inode, maybe the same size."""
    path = tmp_path / "token"
    path.write_text("s3cr3t-aaaa")
    clock = FakeClock()
    auth = TokenFileAuth(path, clock=clock)
    fresh = tmp_path / "token.new"
    fresh.write_text("s3cr3t-bbbb")
    os.replace(fresh, path)
    clock.step(5)
    assert _header(auth) == "Bearer s3cr3t-bbbb"


def test_token_file_refresh_after_401_rereads_now_and_says_if_it_changed(tmp_path):
    path = tmp_path / "token"
    path.write_text("s3cr3t-old")
    auth = TokenFileAuth(path, clock=FakeClock())
    assert auth.refresh_after_unauthorized() is False  # unchanged: retrying is pointless
    path.write_text("s3cr3t-new")
    assert auth.refresh_after_unauthorized() is True
    assert _header(auth) == "Bearer s3cr3t-new"


def test_token_file_keeps_the_last_token_if_the_file_vanishes(tmp_path, caplog):
    path = tmp_path / "token"
    path.write_text("s3cr3t-kept")
    clock = FakeClock()
    auth = TokenFileAuth(path, clock=clock)
    path.unlink()
    clock.step(2)
    assert _header(auth) == "Bearer s3cr3t-kept"
    assert auth.refresh_after_unauthorized() is False
    assert any("keeping the last token" in r.getMessage() for r in caplog.records)


def test_token_file_missing_or_empty_is_an_error_naming_the_file(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(KubeConfigError, match=r"cannot read token file .*nope"):
        TokenFileAuth(missing)
    empty = tmp_path / "empty"
    empty.write_text("\n")
    with pytest.raises(KubeConfigError, match=r"token file .*empty is empty"):
        TokenFileAuth(empty)


def test_token_file_401_then_refresh_then_200_against_the_embedded_server(tmp_path):
    """The whole point of refresh_after_unauthorized, over real HTTP."""
    before = set(threading.enumerate())
    path = tmp_path / "token"
    path.write_text("s3cr3t-stale")
    with EmbeddedServer(token="s3cr3t-server-token") as server:
        config = config_from_dict({
            "clusters": [{"name": "e", "cluster": {"server": server.url}}],
            "users": [{"name": "e", "user": {"tokenFile": str(path)}}],
            "contexts": [{"name": "e", "context": {"cluster": "e", "user": "e"}}],
            "current-context": "e",
        })
        with config.new_session() as session:
            url = f"{server.url}/api/v1/namespaces/default"
            assert session.get(url, timeout=5).status_code == 401
            path.write_text("s3cr3t-server-token")
            assert config.auth.refresh_after_unauthorized() is True
            assert session.get(url, timeout=5).status_code == 200
    assert_no_new_threads(before)


# -- exec plugins: success paths ---------------------------------------------------------


@pytest.mark.parametrize("api_version", [V1, V1BETA1])
def test_exec_plugin_token_for_v1_and_v1beta1(plugin, api_version):
    auth = ExecAuth(plugin.exec_config(api_version, args=["get-token", "--x"],
                                       env=[{"name": "KUBENB_PLUGIN_ENV", "value": "on"}]),
                    source="test: users[0].user.exec")
    assert _header(auth) == "Bearer s3cr3t-exec-token-1"
    info = plugin.run_info(1)
    assert info["argv"] == ["get-token", "--x"]
    assert info["env"]["KUBENB_PLUGIN_ENV"] == "on"
    assert info["env"]["HOME"] == os.environ.get("HOME")  # merged over os.environ
    assert info["stdin_isatty"] is False
    assert info["exec_info"] == {"kind": "ExecCredential", "apiVersion": api_version,
                                 "spec": {"interactive": False}}
    assert auth.kind == "exec"
    _assert_clean(auth)


def test_exec_credentials_are_cached_until_expiration_on_the_clock(plugin):
    plugin.set(expires_in=600)
    clock = FakeClock()
    auth = ExecAuth(plugin.exec_config(), clock=clock)
    assert _header(auth) == "Bearer s3cr3t-exec-token-1"
    assert _header(auth) == "Bearer s3cr3t-exec-token-1"
    clock.step(590)
    assert _header(auth) == "Bearer s3cr3t-exec-token-1"
    assert plugin.runs == 1
    clock.step(15)  # past expirationTimestamp
    assert _header(auth) == "Bearer s3cr3t-exec-token-2"
    assert plugin.runs == 2
    assert auth.expiry is not None and auth.expiry > clock.now()


def test_exec_credentials_without_expiry_are_cached_forever(plugin):
    clock = FakeClock()
    auth = ExecAuth(plugin.exec_config(), clock=clock)
    _header(auth)
    clock.step(10 * 365 * 86400)
    _header(auth)
    assert plugin.runs == 1
    assert auth.expiry is None


def test_exec_refresh_after_unauthorized_reruns_the_plugin(plugin):
    auth = ExecAuth(plugin.exec_config(), clock=FakeClock())
    assert _header(auth).endswith("-1")
    assert auth.refresh_after_unauthorized() is True
    assert plugin.runs == 2
    assert _header(auth).endswith("-2")


def test_exec_refresh_that_returns_the_same_token_says_retry_is_pointless(plugin):
    plugin.set(fixed_token="s3cr3t-always-the-same")
    auth = ExecAuth(plugin.exec_config(), clock=FakeClock())
    _header(auth)
    assert auth.refresh_after_unauthorized() is False
    assert plugin.runs == 2


def test_exec_plugin_runs_once_for_many_concurrent_requests(plugin):
    """Single flight: threads needing credentials at once share one plugin run, and
    threads that all got a 401 with those credentials share one refresh."""
    auth = ExecAuth(plugin.exec_config(), clock=FakeClock())
    barrier = threading.Barrier(8)
    seen: list[str] = []
    refreshed: list[bool] = []

    def request() -> None:
        barrier.wait()
        seen.append(_header(auth))
        barrier.wait()
        refreshed.append(auth.refresh_after_unauthorized())

    threads = [threading.Thread(target=request, name=f"kubenb-test-exec-{i}") for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == ["Bearer s3cr3t-exec-token-1"] * 8
    assert plugin.runs == 2  # one initial run, one refresh
    assert refreshed == [True] * 8
    assert _header(auth) == "Bearer s3cr3t-exec-token-2"


def test_exec_plugin_client_certificate_is_written_to_private_files(plugin):
    ca = trustme.CA()
    plugin.give_cert(ca.issue_cert("client.example", common_name="exec-user"))
    plugin.set(token=False, cert=True)
    auth = ExecAuth(plugin.exec_config())
    assert _header(auth) == ""  # a cert only: no Authorization header
    cert_file, key_file = auth.cert_files()
    assert Path(cert_file).read_bytes().startswith(b"-----BEGIN CERTIFICATE-----")
    assert b"PRIVATE KEY" in Path(key_file).read_bytes()
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(key_file)).st_mode) == 0o700
    assert key_file not in repr(auth)


def test_exec_provide_cluster_info_passes_the_cluster(plugin):
    auth = ExecAuth(plugin.exec_config(V1BETA1, provideClusterInfo=True),
                    cluster={"server": "https://k.example", "certificate-authority-data": "Q0E="})
    _header(auth)
    spec = plugin.run_info(1)["exec_info"]["spec"]
    assert spec == {"interactive": False,
                    "cluster": {"server": "https://k.example",
                                "certificate-authority-data": "Q0E="}}


def test_exec_if_available_and_never_modes_are_fine_without_a_tty(plugin):
    for mode in ("Never", "IfAvailable"):
        auth = ExecAuth(plugin.exec_config(interactiveMode=mode))
        assert _header(auth).startswith("Bearer ")


def test_exec_v1beta1_defaults_interactive_mode_to_if_available(plugin):
    auth = ExecAuth({"apiVersion": V1BETA1, "command": str(plugin.path)})
    assert auth.interactive_mode == "IfAvailable"


def test_exec_stderr_of_a_working_plugin_is_logged_without_tokens(plugin, caplog):
    plugin.set(stderr="warning: s3cr3t-exec-token-1 is about to expire\n")
    auth = ExecAuth(plugin.exec_config())
    _header(auth)  # stdout is decoded first, so the new token is redacted from stderr
    assert any("<redacted> is about to expire" in r.getMessage() for r in caplog.records)


# -- exec plugins: failures ----------------------------------------------------------------


def test_exec_failing_plugin_error_shows_exit_code_stderr_and_install_hint(plugin):
    auth = ExecAuth(plugin.exec_config(installHint="Install it with: brew install fake-plugin"),
                    source="/home/me/.kube/config: users[0].user.exec")
    _header(auth)  # token s3cr3t-exec-token-1 is now known
    plugin.set(fail="Error: session expired for token TOKEN; run `fake login`\n",
               leak="s3cr3t-exec-token-1", code=3)
    with pytest.raises(KubeConfigError) as info:
        auth.refresh_after_unauthorized()
    text = str(info.value)
    assert "/home/me/.kube/config: users[0].user.exec" in text
    assert f"executable {plugin.path} failed with exit code 3" in text
    assert "session expired" in text and "run `fake login`" in text
    assert "brew install fake-plugin" in text
    assert "<redacted>" in text
    _assert_clean(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_exec_failing_plugin_on_first_use(plugin):
    plugin.set(fail="boom\n")
    auth = ExecAuth(plugin.exec_config(installHint="see docs"))
    with pytest.raises(KubeConfigError, match=r"(?s)exit code 1.*boom.*see docs"):
        auth.apply({})


def test_exec_command_not_found_shows_the_install_hint():
    auth = ExecAuth({"apiVersion": V1BETA1, "command": "kubenb-no-such-plugin-xyz",
                     "installHint": "Install kubenb-no-such-plugin-xyz from example.com"},
                    source="cfg: users[2].user.exec")
    with pytest.raises(KubeConfigError) as info:
        auth.apply({})
    text = str(info.value)
    assert text.startswith("cfg: users[2].user.exec: exec: executable kubenb-no-such-plugin-xyz "
                           "not found")
    assert "client-go credential plugin that is not installed" in text
    assert text.endswith("Install kubenb-no-such-plugin-xyz from example.com")


def test_exec_missing_path_command_is_not_found(tmp_path):
    auth = ExecAuth({"apiVersion": V1BETA1, "command": str(tmp_path / "gone" / "plugin")})
    with pytest.raises(KubeConfigError, match="not found"):
        auth.apply({})


def test_exec_interactive_always_without_a_tty_is_a_clear_error(plugin):
    auth = ExecAuth(plugin.exec_config(interactiveMode="Always"))
    with pytest.raises(KubeConfigError, match="standard input is not a terminal"):
        auth.apply({})
    assert plugin.runs == 0


@pytest.mark.parametrize(("conf", "message"), [
    ({"apiVersion": V1, "command": "x"}, r"exec\.interactiveMode: must be specified"),
    ({"apiVersion": V1, "command": "x", "interactiveMode": "Sometimes"},
     r"exec\.interactiveMode: invalid value 'Sometimes'"),
    ({"apiVersion": "client.authentication.k8s.io/v1alpha1", "command": "x"},
     r"exec\.apiVersion: .*v1alpha1.* is not supported"),
    ({"command": "x"}, r"exec\.apiVersion: must be specified"),
    ({"apiVersion": V1BETA1}, r"exec\.command: must be specified"),
    ({"apiVersion": V1BETA1, "command": "x", "env": [{"value": "v"}]},
     r"exec\.env\[0\]\.name: must be specified"),
    ({"apiVersion": V1BETA1, "command": "x", "args": "--region x"},
     r"exec\.args: expected a list"),
])
def test_exec_config_errors_name_the_field(conf, message):
    with pytest.raises(KubeConfigError, match=message):
        ExecAuth(conf, source="f: users[0].user.exec")


@pytest.mark.parametrize(("behaviour", "message"), [
    ({"raw": "token=TOKEN"}, "decoding stdout: not valid JSON"),
    ({"raw": '["TOKEN"]'}, "not a JSON object"),
    ({"api_version": V1BETA1}, f"configured to use API version {V1}, plugin returned "
                               f"version {V1BETA1}"),
    ({"raw": json.dumps({"apiVersion": V1})}, "didn't return a status field"),
    ({"token": False}, "didn't return a token or cert/key pair"),
    ({"raw": json.dumps({"apiVersion": V1, "status": {"token": "TOKEN",
                                                      "expirationTimestamp": "tomorrow"}})},
     "expirationTimestamp 'tomorrow' is not an RFC 3339 time"),
    ({"raw": json.dumps({"apiVersion": V1, "status": {"clientCertificateData": "x"}})},
     "only certificate or key, not both"),
    ({"raw": json.dumps({"apiVersion": V1, "kind": "Pod", "status": {"token": "TOKEN"}})},
     "returned kind 'Pod'"),
])
def test_exec_bad_plugin_output_is_explained_without_quoting_it(plugin, behaviour, message):
    plugin.set(**behaviour)
    auth = ExecAuth(plugin.exec_config())
    with pytest.raises(KubeConfigError) as info:
        auth.apply({})
    assert message in str(info.value)
    _assert_clean(info.value)


def test_exec_plugin_that_hangs_is_stopped_after_the_timeout(plugin):
    plugin.set(sleep=30)
    auth = ExecAuth(plugin.exec_config(installHint="hint!"), timeout=0.5)
    with pytest.raises(KubeConfigError, match=r"(?s)did not finish within 0\.5s.*hint!"):
        auth.apply({})


def test_rfc3339_forms_plugins_emit():
    utc = timezone.utc
    assert _parse_rfc3339("2024-01-02T03:04:05Z") == datetime(2024, 1, 2, 3, 4, 5, tzinfo=utc)
    assert _parse_rfc3339("2024-01-02T03:04:05.123456789Z") == datetime(
        2024, 1, 2, 3, 4, 5, 123456, tzinfo=utc)
    assert _parse_rfc3339("2024-01-02t04:04:05+01:00") == datetime(
        2024, 1, 2, 3, 4, 5, tzinfo=utc)
    assert _parse_rfc3339("2024-01-02 03:04:05.5-00:30") == datetime(
        2024, 1, 2, 3, 34, 5, 500000, tzinfo=utc)
    with pytest.raises(ValueError):
        _parse_rfc3339("2024-01-02T03:04:05")  # no zone


def test_exec_expiry_in_the_past_means_run_again_next_time(plugin):
    plugin.set(expires_in=-60)
    auth = ExecAuth(plugin.exec_config(), clock=FakeClock())
    _header(auth)
    _header(auth)
    assert plugin.runs == 2


def test_exec_auth_through_a_session_against_the_embedded_server(plugin):
    """An exec plugin's token reaches the server; a 401 triggers a re-run that heals it."""
    plugin.set(prefix="s3cr3t-srv")  # tokens s3cr3t-srv-1, s3cr3t-srv-2, ...
    with EmbeddedServer(token="s3cr3t-srv-2") as server:
        config = config_from_dict({
            "clusters": [{"name": "e", "cluster": {"server": server.url}}],
            "users": [{"name": "e", "user": {"exec": plugin.exec_config()}}],
            "contexts": [{"name": "e", "context": {"cluster": "e", "user": "e"}}],
            "current-context": "e",
        })
        assert config.auth_kind == "exec"
        with config.new_session() as session:
            url = f"{server.url}/api/v1/namespaces"
            assert session.get(url, timeout=5).status_code == 401
            assert config.auth.refresh_after_unauthorized() is True
            response = session.get(url, timeout=5)
            assert response.status_code == 200, response.text
    _assert_clean(config, config.auth)


def test_requests_level_header_wins_over_config_auth(plugin):
    """Like client-go's exec round tripper: an explicit Authorization is left alone."""
    auth = ExecAuth(plugin.exec_config())
    config = config_from_dict({
        "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],
        "users": [{"name": "u", "user": {"exec": plugin.exec_config()}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "c",
    })
    session = config.new_session()
    prepared = session.prepare_request(requests.Request(
        "GET", "http://127.0.0.1:9/api", headers={"Authorization": "Bearer explicit"}))
    assert prepared.headers["Authorization"] == "Bearer explicit"
    assert plugin.runs == 0
    without = session.prepare_request(requests.Request("GET", "http://127.0.0.1:9/api"))
    assert without.headers["Authorization"] == "Bearer s3cr3t-exec-token-1"
    session.close()
    assert _header(auth) == "Bearer s3cr3t-exec-token-2"  # its own credentials, one more run


def test_exec_expiry_uses_wall_time_then_the_clock(plugin):
    """The plugin's timestamp is wall time; it becomes a deadline on the injected clock."""
    plugin.set(expires_in=3600)
    clock = FakeClock(start=1000.0)
    auth = ExecAuth(plugin.exec_config(), clock=clock)
    _header(auth)
    assert auth.expiry is not None
    assert 1000 + 3590 < auth.expiry <= 1000 + 3600
    assert timedelta(seconds=auth.expiry - clock.now()) <= timedelta(hours=1)


# -- tokens that cannot be sent in a header --------------------------------------------------------

def test_rotated_token_file_with_a_bad_token_keeps_the_last_good_one(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "token"
    path.write_text("s3cr3t-good")
    clock = FakeClock()
    auth = TokenFileAuth(path, clock)
    path.write_text("s3cr3t-bad\u20ac-and-longer")
    clock.step(5)
    headers: dict[str, str] = {}
    with caplog.at_level(logging.WARNING, logger="kubenb"):
        auth.apply(headers)
    assert headers["Authorization"] == "Bearer s3cr3t-good"
    assert any("non-ASCII" in r.getMessage() for r in caplog.records)
    assert all("s3cr3t" not in r.getMessage() for r in caplog.records)


def test_exec_plugin_token_with_a_line_break_is_refused_when_obtained(
        server: EmbeddedServer, tmp_path: Path, threads_checked: None) -> None:
    plugin = FakePlugin(tmp_path).set(fixed_token="s3cr3t-exec\nInjected: 1")
    config = config_from_dict(kubeconfig_doc(server.url, {"exec": plugin.exec_config()}),
                              source="kc.yaml")
    rest = RESTClient(config)
    try:
        with pytest.raises(KubeConfigError) as info:
            rest.get("/version")
    finally:
        rest.close()
    text = str(info.value)
    assert "kc.yaml: users[0].user.exec" in text and "status.token" in text
    assert "a line break" in text and "s3cr3t" not in text
