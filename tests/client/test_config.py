"""Loading kubeconfig (kubectl's rules) and in-cluster config, and what errors say.

Real-world shapes live in fixtures/kubeconfig/ (kind, minikube, EKS- and GKE-style exec,
two files merged, malformed files). Files that need certificates or a runnable plugin are
copied into tmp_path and filled in; `${...}` placeholders mark where.
"""

from __future__ import annotations

import base64
import logging
import os
from pathlib import Path
from typing import Any

import pytest
import trustme
import yaml

from kubenb.client import config as config_module
from kubenb.client.auth import BasicAuth, ExecAuth, TokenAuth, TokenFileAuth
from kubenb.client.config import (
    Config,
    config_from_dict,
    load_config,
    load_incluster_config,
    load_kube_config,
)
from kubenb.errors import KubeConfigError
from tests.client.conftest import kubeconfig_doc
from tests.client.test_auth import SECRET_MARK, FakePlugin

FIXTURES = Path(__file__).parent / "fixtures" / "kubeconfig"


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def leaf(ca: trustme.CA) -> trustme.LeafCert:
    return ca.issue_cert("client.example", common_name="fixture-user")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path):
    """No test here sees the machine's kubeconfig or service account."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_PORT", raising=False)
    monkeypatch.delenv("POD_NAMESPACE", raising=False)


@pytest.fixture(autouse=True)
def no_secrets_in_logs(caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.DEBUG, logger="kubenb")
    yield
    for phase in ("setup", "call"):
        for record in caplog.get_records(phase):
            assert SECRET_MARK not in record.getMessage(), record.getMessage()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _render(name: str, dest: Path, **values: str) -> Path:
    """Copy a fixture into `dest`, replacing ${KEY} placeholders."""
    text = (FIXTURES / name).read_text()
    for key, value in values.items():
        text = text.replace("${" + key + "}", value)
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert "${" not in "\n".join(body), "unfilled placeholder"
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / Path(name).name
    path.write_text(text)
    return path


def _simple(server: str = "https://127.0.0.1:6443", **user: Any) -> dict[str, Any]:
    return {
        "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": server,
                                               "insecure-skip-tls-verify": True}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    }


# -- real-world shapes -----------------------------------------------------------------


def test_kind_fixture_loads_server_ca_and_client_cert(tmp_path, ca, leaf):
    path = _render("kind.yaml", tmp_path, CA_DATA=_b64(ca.cert_pem.bytes()), PORT="43127",
                   CLIENT_CERT_DATA=_b64(leaf.cert_chain_pems[0].bytes()),
                   CLIENT_KEY_DATA=_b64(leaf.private_key_pem.bytes()))
    config = load_kube_config(path)
    assert config.server == "https://127.0.0.1:43127"
    assert (config.context_name, config.cluster_name, config.user_name) == ("kind-kind",) * 3
    assert config.namespace == "default"
    assert config.ca_data == ca.cert_pem.bytes()
    assert Path(config.ca_file).read_bytes() == ca.cert_pem.bytes()
    assert Path(config.client_cert_file).read_bytes() == leaf.cert_chain_pems[0].bytes()
    assert Path(config.client_key_file).read_bytes() == leaf.private_key_pem.bytes()
    assert config.auth is None and config.auth_kind == "client-certificate"
    assert config.source == str(path)
    assert repr(config) == ("Config(server='https://127.0.0.1:43127', context='kind-kind', "
                            "namespace='default', auth='client-certificate')")


def test_minikube_fixture_resolves_relative_paths_against_its_directory(tmp_path, ca, leaf,
                                                                        monkeypatch):
    where = tmp_path / "kube"
    path = _render("minikube.yaml", where)
    (where / "minikube" / "profiles" / "minikube").mkdir(parents=True)
    ca.cert_pem.write_to_path(str(where / "minikube" / "ca.crt"))
    leaf.cert_chain_pems[0].write_to_path(str(where / "minikube/profiles/minikube/client.crt"))
    leaf.private_key_pem.write_to_path(str(where / "minikube/profiles/minikube/client.key"))
    monkeypatch.chdir(tmp_path)  # the cwd must not matter
    config = load_kube_config(path)
    assert config.server == "https://192.168.49.2:8443"
    assert config.namespace == "dev"
    assert config.ca_file == str(where / "minikube" / "ca.crt")
    assert config.ca_data is None
    assert config.client_cert_file == str(where / "minikube/profiles/minikube/client.crt")
    assert config.client_key_file == str(where / "minikube/profiles/minikube/client.key")


def test_eks_fixture_shape_loads_as_an_exec_plugin(tmp_path, ca):
    path = _render("eks.yaml", tmp_path, CA_DATA=_b64(ca.cert_pem.bytes()))
    config = load_kube_config(path)
    assert config.server == "https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com"
    assert config.context_name == "arn:aws:eks:eu-west-1:123456789012:cluster/demo"
    assert isinstance(config.auth, ExecAuth)
    assert config.auth.command == "aws"  # PATH-based: not resolved against the file
    assert config.auth.args[2:4] == ["eks", "get-token"]
    assert config.auth.interactive_mode == "IfAvailable"  # the v1beta1 default
    assert repr(config).endswith("auth='exec')")


def test_eks_fixture_runs_its_plugin_with_args_and_env(tmp_path, ca):
    plugin = FakePlugin(tmp_path, name="aws")
    plugin.set(expires_in=840, prefix="s3cr3t-k8s-aws-v1")
    source = _render("eks.yaml", tmp_path / "kube", CA_DATA=_b64(ca.cert_pem.bytes()))
    source.write_text(source.read_text().replace("command: aws", f"command: {plugin.path}"))
    config = load_kube_config(source)
    headers: dict[str, str] = {}
    config.auth.apply(headers)
    assert headers["Authorization"] == "Bearer s3cr3t-k8s-aws-v1-1"
    info = plugin.run_info(1)
    assert info["argv"] == ["--region", "eu-west-1", "eks", "get-token", "--cluster-name",
                            "demo", "--output", "json"]
    assert info["env"]["AWS_PROFILE"] == "dev-admin"
    assert "cluster" not in info["exec_info"]["spec"]  # provideClusterInfo is off


def test_gke_fixture_gives_cluster_info_and_keeps_the_install_hint(tmp_path, ca, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # whatever this machine has installed
    path = _render("gke.yaml", tmp_path, CA_DATA=_b64(ca.cert_pem.bytes()))
    config = load_kube_config(path)
    assert config.namespace == "team-a"
    assert config.auth.provide_cluster_info is True
    assert config.auth.install_hint.startswith("Install gke-gcloud-auth-plugin")
    with pytest.raises(KubeConfigError) as info:  # not installed here
        config.auth.apply({})
    text = str(info.value)
    assert f"{path}: users[0].user.exec: exec: executable gke-gcloud-auth-plugin not found" in text
    assert "cluster-access-for-kubectl#install_plugin" in text

    plugin = FakePlugin(tmp_path, name="gke-gcloud-auth-plugin")
    path.write_text(path.read_text().replace("command: gke-gcloud-auth-plugin",
                                             f"command: {plugin.path}"))
    config = load_kube_config(path)
    config.auth.apply({})
    cluster = plugin.run_info(1)["exec_info"]["spec"]["cluster"]
    assert cluster["server"] == "https://34.140.10.20"
    assert base64.b64decode(cluster["certificate-authority-data"]) == ca.cert_pem.bytes()


def test_exec_command_with_a_relative_path_resolves_against_the_file(tmp_path):
    kube = tmp_path / "kube"
    (kube / "bin").mkdir(parents=True)
    plugin = FakePlugin(kube / "bin", name="plugin")
    doc = _simple(exec={"apiVersion": "client.authentication.k8s.io/v1beta1",
                        "command": "./bin/plugin"})
    path = kube / "config"
    path.write_text(yaml.safe_dump(doc))
    config = load_kube_config(path)
    assert config.auth.command == str(kube / "./bin/plugin")
    headers: dict[str, str] = {}
    config.auth.apply(headers)
    assert plugin.runs == 1


# -- merging several files ---------------------------------------------------------------


@pytest.fixture
def merged_files(tmp_path) -> tuple[Path, Path]:
    first_dir, second_dir = tmp_path / "first", tmp_path / "second"
    first = _render("merge/first.yaml", first_dir)
    second = _render("merge/second.yaml", second_dir)
    (first_dir / "tokens").mkdir()
    (first_dir / "tokens" / "dev-token").write_text("s3cr3t-dev-token\n")
    (second_dir / "tokens").mkdir()
    (second_dir / "tokens" / "prod-token").write_text("s3cr3t-prod-token\n")
    return first, second


def _bearer(config: Config) -> str:
    headers: dict[str, str] = {}
    config.auth.apply(headers)
    return headers["Authorization"]


def test_kubeconfig_env_merges_with_first_file_winning(merged_files, monkeypatch):
    first, second = merged_files
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(first), str(second)]))
    config = load_config()
    assert config.context_name == "dev"  # current-context from the first file
    assert config.server == "https://dev.example.com:6443"
    assert config.namespace == "dev-ns"
    assert isinstance(config.auth, TokenFileAuth)
    assert config.auth.path == str(first.parent / "tokens" / "dev-token")  # first file's dir
    assert _bearer(config) == "Bearer s3cr3t-dev-token"
    assert config.source == os.pathsep.join([str(first), str(second)])

    shared = load_config(context="shared")
    assert shared.server == "https://first.example.com:6443"  # first definition wins
    assert shared.namespace == "first-ns"
    assert _bearer(shared) == "Bearer s3cr3t-first-shared-token"

    prod = load_config(context="prod")  # only the second file has it
    assert prod.server == "https://prod.example.com:6443"
    assert prod.namespace == "default"
    assert prod.auth.path == str(second.parent / "tokens" / "prod-token")  # second file's dir
    assert _bearer(prod) == "Bearer s3cr3t-prod-token"


def test_kubeconfig_env_order_decides(merged_files, monkeypatch):
    first, second = merged_files
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(second), str(first)]))
    config = load_config()
    assert config.context_name == "prod"
    assert load_config(context="shared").server == "https://second.example.com:6443"


def test_kubeconfig_env_skips_missing_files_and_duplicates(merged_files, monkeypatch, tmp_path):
    first, second = merged_files
    missing = tmp_path / "nope.yaml"
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join(
        ["", str(missing), str(second), str(first), str(second)]))
    config = load_config()
    assert config.context_name == "prod"
    assert config.source == os.pathsep.join([str(second), str(first)])


def test_an_explicit_list_merges_like_kubeconfig(merged_files):
    first, second = merged_files
    assert load_config([first, second]).context_name == "dev"
    assert load_kube_config([second, first]).context_name == "prod"


def test_later_file_may_set_current_context_when_the_first_does_not(merged_files, tmp_path):
    first, second = merged_files
    doc = yaml.safe_load(first.read_text())
    del doc["current-context"]
    first.write_text(yaml.safe_dump(doc))
    assert load_kube_config([first, second]).context_name == "prod"


# -- defaults and overrides --------------------------------------------------------------


def test_home_kube_config_is_the_default(tmp_path):
    home_kube = tmp_path / "home" / ".kube"
    home_kube.mkdir(parents=True)
    (home_kube / "config").write_text(yaml.safe_dump(_simple(token="s3cr3t-home")))
    config = load_config()
    assert config.source == str(home_kube / "config")
    assert isinstance(config.auth, TokenAuth)


def test_kubeconfig_env_replaces_the_home_default(tmp_path, merged_files, monkeypatch):
    home_kube = tmp_path / "home" / ".kube"
    home_kube.mkdir(parents=True)
    (home_kube / "config").write_text(yaml.safe_dump(_simple(token="s3cr3t-home")))
    monkeypatch.setenv("KUBECONFIG", str(merged_files[1]))
    assert load_config().context_name == "prod"


def test_explicit_path_must_exist(tmp_path):
    with pytest.raises(KubeConfigError, match=r"nope\.yaml: kubeconfig file not found"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(KubeConfigError, match=r"none of .* exists"):
        load_kube_config([tmp_path / "a", tmp_path / "b"])


def test_context_override_and_per_context_namespace():
    doc = _simple(token="s3cr3t-t")
    doc["contexts"].append({"name": "other", "context": {"cluster": "c", "user": "u",
                                                          "namespace": "kube-system"}})
    assert config_from_dict(doc).namespace == "default"
    other = config_from_dict(doc, context="other")
    assert (other.context_name, other.namespace) == ("other", "kube-system")


def test_nothing_found_says_what_was_looked_for(tmp_path):
    with pytest.raises(KubeConfigError) as info:
        load_config()
    text = str(info.value)
    assert "$KUBECONFIG (not set)" in text
    assert str(tmp_path / "home" / ".kube" / "config") in text
    assert "KUBERNETES_SERVICE_HOST is not set" in text
    assert "serviceaccount/token" in text
    with pytest.raises(KubeConfigError, match="no kubeconfig found"):
        load_kube_config()


def test_kubeconfig_env_naming_only_missing_files_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "gone"))
    with pytest.raises(KubeConfigError, match=r"\$KUBECONFIG=.*gone \(0 of 1 files exist\)"):
        load_config()


def test_server_without_scheme_gets_one_like_client_go():
    doc = _simple(token="s3cr3t-x", server="10.0.0.1:6443")
    assert config_from_dict(doc).server == "https://10.0.0.1:6443"  # TLS settings present
    doc["clusters"][0]["cluster"] = {"server": "127.0.0.1:8080"}
    assert config_from_dict(doc).server == "http://127.0.0.1:8080"


def test_server_keeps_a_path_prefix_and_drops_the_trailing_slash():
    doc = _simple(server="https://rancher.example/k8s/clusters/c-abc/")
    assert config_from_dict(doc).server == "https://rancher.example/k8s/clusters/c-abc"


def test_credentials_in_a_server_url_are_not_shown():
    config = config_from_dict(_simple(server="https://admin:s3cr3t-in-url@k.example:6443"))
    assert repr(config) == ("Config(server='https://k.example:6443', context='c', "
                            "namespace='default', auth='basic')")
    with pytest.raises(KubeConfigError) as info:
        config_from_dict(_simple(server="https://admin:s3cr3t-in-url@k.example:bad"))
    assert "'https://<redacted>@k.example' has an invalid port" in str(info.value)


def test_auth_kinds_from_users():
    assert isinstance(config_from_dict(_simple(token="s3cr3t-a")).auth, TokenAuth)
    basic = config_from_dict(_simple(username="admin", password="s3cr3t-pw")).auth
    assert isinstance(basic, BasicAuth) and basic.username == "admin"
    assert config_from_dict(_simple()).auth is None
    no_user = _simple()
    del no_user["contexts"][0]["context"]["user"]
    assert config_from_dict(no_user).auth_kind == "none"


def test_token_file_wins_over_a_static_token_like_client_go(tmp_path):
    token_file = tmp_path / "t"
    token_file.write_text("s3cr3t-from-file")
    config = config_from_dict(_simple(token="s3cr3t-static", tokenFile=str(token_file)))
    assert _bearer(config) == "Bearer s3cr3t-from-file"


def test_exec_is_ignored_when_the_user_has_static_credentials(tmp_path):
    config = config_from_dict(_simple(token="s3cr3t-wins", exec={
        "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "never-run"}))
    assert isinstance(config.auth, TokenAuth)


def test_config_can_be_built_by_hand_with_inline_ca(ca):
    config = Config(server="https://k.example:6443/", ca_data=ca.cert_pem.bytes(),
                    auth=TokenAuth("s3cr3t-hand"))
    assert config.server == "https://k.example:6443"
    assert Path(config.ca_file).read_bytes() == ca.cert_pem.bytes()
    assert config.timeout == (10, 60)
    assert SECRET_MARK not in repr(config)


# -- in-cluster -----------------------------------------------------------------------------


@pytest.fixture
def sa_dir(tmp_path, ca) -> Path:
    root = tmp_path / "serviceaccount"
    root.mkdir()
    (root / "token").write_text("s3cr3t-sa-token")
    ca.cert_pem.write_to_path(str(root / "ca.crt"))
    (root / "namespace").write_text("team-ns")
    return root


def test_incluster_config_from_token_ca_namespace_and_env(sa_dir):
    env = {"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    config = load_incluster_config(sa_dir, env=env)
    assert config.server == "https://10.96.0.1:443"
    assert config.namespace == "team-ns"
    assert config.ca_file == str(sa_dir / "ca.crt")
    assert config.source == "in-cluster"
    assert isinstance(config.auth, TokenFileAuth)
    assert _bearer(config) == "Bearer s3cr3t-sa-token"
    assert repr(config) == ("Config(server='https://10.96.0.1:443', context=None, "
                            "namespace='team-ns', auth='token-file')")


def test_incluster_ipv6_host_gets_brackets(sa_dir):
    env = {"KUBERNETES_SERVICE_HOST": "fd00:10:96::1", "KUBERNETES_SERVICE_PORT": "443"}
    assert load_incluster_config(sa_dir, env=env).server == "https://[fd00:10:96::1]:443"


def test_incluster_pod_namespace_env_and_missing_namespace_file(sa_dir):
    env = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "6443",
           "POD_NAMESPACE": "from-env"}
    assert load_incluster_config(sa_dir, env=env).namespace == "from-env"
    (sa_dir / "namespace").unlink()
    del env["POD_NAMESPACE"]
    assert load_incluster_config(sa_dir, env=env).namespace == "default"


def test_incluster_errors(sa_dir):
    with pytest.raises(KubeConfigError, match="KUBERNETES_SERVICE_HOST and "
                                              "KUBERNETES_SERVICE_PORT must be defined"):
        load_incluster_config(sa_dir, env={"KUBERNETES_SERVICE_HOST": "10.0.0.1"})
    (sa_dir / "token").unlink()
    env = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    with pytest.raises(KubeConfigError, match=r"in-cluster: cannot read token file .*token"):
        load_incluster_config(sa_dir, env=env)


def test_incluster_token_rotation_is_picked_up(sa_dir):
    env = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    config = load_incluster_config(sa_dir, env=env)
    (sa_dir / "token").write_text("s3cr3t-rotated-token")
    assert config.auth.refresh_after_unauthorized() is True
    assert _bearer(config) == "Bearer s3cr3t-rotated-token"


def test_load_config_uses_incluster_in_a_pod_without_kubeconfig(sa_dir, monkeypatch):
    monkeypatch.setattr(config_module, "INCLUSTER_ROOT", str(sa_dir))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    config = load_config()
    assert config.source == "in-cluster"
    assert config.namespace == "team-ns"
    with pytest.raises(KubeConfigError, match="context 'x' was given but no kubeconfig"):
        load_config(context="x")


def test_load_config_prefers_a_kubeconfig_even_in_a_pod(sa_dir, monkeypatch, merged_files):
    monkeypatch.setattr(config_module, "INCLUSTER_ROOT", str(sa_dir))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    monkeypatch.setenv("KUBECONFIG", str(merged_files[0]))
    assert load_config().context_name == "dev"
    empty = merged_files[0].parent / "empty.yaml"
    empty.write_text("")
    monkeypatch.setenv("KUBECONFIG", str(empty))
    assert load_config().source == "in-cluster"  # an empty kubeconfig is no kubeconfig
    with pytest.raises(KubeConfigError):
        load_kube_config()  # kubeconfig only: never in-cluster


# -- malformed files -------------------------------------------------------------------


@pytest.mark.parametrize(("name", "field", "problem"), [
    ("bad-yaml.yaml", "invalid YAML", "line 7, column 15: mapping values are not allowed here"),
    ("unknown-context.yaml", "context 'does-not-exist'", "not found (contexts: real)"),
    ("missing-cluster.yaml", "contexts[1].context.cluster",
     "cluster 'no-such-cluster' not found"),
    ("bad-base64.yaml", "users[0].user.client-certificate-data", "invalid base64"),
    ("missing-cert-file.yaml", "clusters[0].cluster.certificate-authority",
     "certs/ca.crt not found"),
])
def test_malformed_fixtures_name_the_file_and_the_field(name, field, problem):
    path = FIXTURES / "malformed" / name
    with pytest.raises(KubeConfigError) as info:
        load_kube_config(path)
    text = str(info.value)
    assert text.startswith(f"{path}: {field}"), text
    assert problem in text
    assert SECRET_MARK not in text and SECRET_MARK not in repr(info.value)
    assert info.value.__cause__ is None
    assert info.value.__context__ is None or info.value.__suppress_context__


def test_raw_yaml_errors_would_have_leaked_the_token():
    """Why bad YAML is reported by position only: PyYAML quotes the offending line."""
    text = (FIXTURES / "malformed" / "bad-yaml.yaml").read_text()
    with pytest.raises(yaml.YAMLError) as info:
        yaml.safe_load(text)
    assert SECRET_MARK in str(info.value)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.update({"kind": "Pod"}), "<dict>: kind: expected Config, got 'Pod'"),
    (lambda d: d.update({"clusters": {"c": {}}}), "<dict>: clusters: expected a list"),
    (lambda d: d["clusters"].append({"name": "c", "cluster": {"server": "https://x"}}),
     "<dict>: clusters[1].name: duplicate name 'c' in clusters"),
    (lambda d: d["clusters"][0]["cluster"].pop("server"),
     "<dict>: clusters[0].cluster.server: no server found for cluster 'c'"),
    (lambda d: d["clusters"][0]["cluster"].update({"server": "ftp://x"}),
     "clusters[0].cluster.server: 'ftp://x' is not an http(s) URL"),
    (lambda d: d["clusters"][0]["cluster"].update({"server": "https://x:99999"}),
     "clusters[0].cluster.server: 'https://x:99999' has an invalid port"),
    (lambda d: d["clusters"][0]["cluster"].update({"insecure-skip-tls-verify": "yes"}),
     "clusters[0].cluster.insecure-skip-tls-verify: expected true or false"),
    (lambda d: d["clusters"][0]["cluster"].update({"certificate-authority-data": "bm9wZQ=="}),
     "clusters[0].cluster.certificate-authority-data: no PEM certificate found"),
    (lambda d: d["clusters"][0]["cluster"].update(
        {"proxy-url": "ftp://user:s3cr3t-pw@proxy:21"}),
     "clusters[0].cluster.proxy-url: 'ftp://<redacted>@proxy:21' is not a"),
    (lambda d: d["contexts"][0]["context"].update({"user": "ghost"}),
     "<dict>: contexts[0].context.user: user 'ghost' not found"),
    (lambda d: d["contexts"][0]["context"].update({"namespace": "Not_Valid"}),
     "contexts[0].context.namespace: 'Not_Valid' is not a valid namespace"),
    (lambda d: d["contexts"][0]["context"].pop("cluster"),
     "contexts[0].context.cluster: context 'c' names no cluster"),
    (lambda d: d.pop("current-context"),
     "<dict>: current-context is not set and no context was given (contexts: c)"),
    (lambda d: d["users"][0]["user"].update({"token": 12345}),
     "users[0].user.token: expected a string, got int"),
    (lambda d: d["users"][0]["user"].update({"username": "a", "password": "s3cr3t-b"}),
     "users[0].user: more than one authentication method found (token, basicAuth)"),
    (lambda d: d["users"][0]["user"].update({"client-key-data": "czNjcjN0"}),
     "users[0].user.client-key-data: no PEM private key found"),
    (lambda d: d["users"][0]["user"].update(
        {"auth-provider": {"name": "gcp", "config": {"access-token": "s3cr3t-old"}}}),
     "users[0].user.auth-provider: the 'gcp' auth provider is not supported"),
    (lambda d: d["users"][0]["user"].update({"as": "system:admin"}),
     "users[0].user.as: impersonation is not supported"),
])
def test_invalid_kubeconfig_fields_are_named(mutate, message):
    doc = _simple(token="s3cr3t-token-in-doc")
    mutate(doc)
    with pytest.raises(KubeConfigError) as info:
        config_from_dict(doc)
    assert message in str(info.value)
    assert SECRET_MARK not in str(info.value)


def test_insecure_together_with_a_ca_is_refused(ca):
    doc = _simple()
    doc["clusters"][0]["cluster"]["certificate-authority-data"] = _b64(ca.cert_pem.bytes())
    with pytest.raises(KubeConfigError, match="insecure flag is not allowed"):
        config_from_dict(doc)


def test_client_cert_needs_its_key_and_not_both_forms(tmp_path, leaf):
    cert_data = _b64(leaf.cert_chain_pems[0].bytes())
    with pytest.raises(KubeConfigError, match=r"users\[0\]\.user: client-key\(-data\) must be"):
        config_from_dict(_simple(**{"client-certificate-data": cert_data}))
    leaf.cert_chain_pems[0].write_to_path(str(tmp_path / "c.crt"))
    with pytest.raises(KubeConfigError, match="client-certificate-data and client-certificate "
                                              "are both specified"):
        config_from_dict(_simple(**{"client-certificate-data": cert_data,
                                    "client-certificate": str(tmp_path / "c.crt")}))


def test_not_a_mapping_and_unreadable_files(tmp_path):
    listy = tmp_path / "list.yaml"
    listy.write_text("- a\n- b\n")
    with pytest.raises(KubeConfigError, match=r"list\.yaml: not a kubeconfig: expected a mapping"):
        load_kube_config(listy)
    with pytest.raises(KubeConfigError, match="is a directory"):
        load_kube_config(tmp_path)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(KubeConfigError, match=r"bin\.yaml: not UTF-8"):
        load_kube_config(binary)


# -- the secrets policy ------------------------------------------------------------------


def test_no_secret_reaches_any_repr_str_error_or_log(tmp_path, ca, leaf, merged_files, caplog):
    """Load everything the tests know, break things, and grep all output for secrets."""
    key_pem = leaf.private_key_pem.bytes()
    key_lines = [line for line in key_pem.decode().splitlines() if "-----" not in line]
    outputs: list[str] = []

    kind = load_kube_config(_render(
        "kind.yaml", tmp_path / "kind", CA_DATA=_b64(ca.cert_pem.bytes()), PORT="1",
        CLIENT_CERT_DATA=_b64(leaf.cert_chain_pems[0].bytes()),
        CLIENT_KEY_DATA=_b64(key_pem)))
    configs = [kind, load_kube_config(list(merged_files)),
               load_kube_config(list(merged_files), context="shared"),
               config_from_dict(_simple(username="admin", password="s3cr3t-basic-pw"))]
    plugin = FakePlugin(tmp_path)
    exec_config = config_from_dict(_simple(exec=plugin.exec_config()))
    exec_config.auth.apply({})
    configs.append(exec_config)
    for config in configs:
        outputs += [repr(config), str(config), repr(config.auth), str(config.auth)]
    for path in sorted((FIXTURES / "malformed").iterdir()):
        with pytest.raises(KubeConfigError) as info:
            load_kube_config(path)
        outputs += [str(info.value), repr(info.value)]
    plugin.set(fail="denied for TOKEN\n", leak="s3cr3t-exec-token-1")
    with pytest.raises(KubeConfigError) as info:
        exec_config.auth.refresh_after_unauthorized()
    outputs += [str(info.value), repr(info.value)]
    outputs.append(caplog.text)

    everything = "\n".join(outputs)
    assert "Config(" in everything and "users[0].user.exec" in everything
    assert SECRET_MARK not in everything
    assert _b64(key_pem)[:40] not in everything
    for line in key_lines:
        assert line not in everything


# -- tokens that cannot be sent in a header --------------------------------------------------------

@pytest.mark.parametrize(("token", "what"), [
    ("s3cr3t-pw\nX-Injected: yes", "a line break"),
    ("s3cr3t-pw\r\n", None),  # trailing whitespace is trimmed
    ("s3cr3t-pw-\u20ac", "a non-ASCII character"),
    ("s3cr3t-pw-\u00e9", "a non-ASCII character"),
    ("s3cr3t-pw\x00x", "a control character"),
    ("s3cr3t pw", "a space"),
])
def test_kubeconfig_token_that_cannot_be_a_header_is_refused_at_load(token: str,
                                                                     what: str | None) -> None:
    doc = kubeconfig_doc("https://k.example", {"token": token})
    if what is None:
        assert config_from_dict(doc).auth_kind == "token"
        return
    with pytest.raises(KubeConfigError) as info:
        config_from_dict(doc, source="kc.yaml")
    text = str(info.value)
    assert text.startswith("kc.yaml: users[0].user.token (user 'alice'): ")
    assert what in text
    assert "s3cr3t" not in text and "s3cr3t" not in repr(info.value)


def test_token_file_with_a_line_break_is_refused_when_read(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("s3cr3t-pw\nsecond line\n")
    with pytest.raises(KubeConfigError) as info:
        config_from_dict(kubeconfig_doc("https://k.example", {"tokenFile": str(path)}),
                         source="kc.yaml")
    text = str(info.value)
    assert "users[0].user.tokenFile (user 'alice')" in text and str(path) in text
    assert "a line break" in text and "s3cr3t" not in text
