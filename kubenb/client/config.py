"""Where to reach the API server and how to prove who we are: kubeconfig and in-cluster.

The rules are kubectl's (client-go's `clientcmd`), so a notebook sees the cluster the
terminal sees:

- `$KUBECONFIG` lists files (os.pathsep-separated); missing ones are skipped. For every
  named cluster, user and context, and for `current-context`, the first file that sets
  it wins; later files only add what earlier ones lack. Without `$KUBECONFIG`,
  `~/.kube/config` is read. An explicit path must exist.
- Relative file paths in a kubeconfig (certificates, keys, token files, an exec command
  that contains a path separator) are relative to that file's directory.
- In a pod (KUBERNETES_SERVICE_HOST/PORT set and a service-account token mounted) with
  no kubeconfig, `load_config()` uses the in-cluster config, as client-go's deferred
  loader does.

Every error a user can cause is a `KubeConfigError` naming the file and the field,
e.g. ``/home/me/.kube/config: users[0].user.client-certificate-data: invalid base64``.
No message or repr ever contains a token, password or key.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
import yaml

from kubenb.client.auth import Auth, BasicAuth, ExecAuth, TokenAuth, TokenFileAuth
from kubenb.client.transport import write_private_file
from kubenb.errors import KubeConfigError
from kubenb.redact import redact_url, split_url_credentials

__all__ = [
    "INCLUSTER_ROOT",
    "Config",
    "config_from_dict",
    "load_config",
    "load_incluster_config",
    "load_kube_config",
]

log = logging.getLogger(__name__)

#: Where a pod's service-account token, CA and namespace are mounted.
INCLUSTER_ROOT = "/var/run/secrets/kubernetes.io/serviceaccount"

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_EXEC_EXTENSION = "client.authentication.k8s.io/exec"
_PROXY_SCHEMES = ("http", "https", "socks5")


@dataclass(repr=False)
class Config:
    """Everything needed to talk to one API server as one user (client-go's rest.Config)."""

    server: str
    namespace: str = "default"
    context_name: str | None = None
    cluster_name: str | None = None
    user_name: str | None = None
    source: str = "<unknown>"
    ca_file: str | None = None
    ca_data: bytes | None = None
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    proxy_url: str | None = None
    client_cert_file: str | None = None
    client_key_file: str | None = None
    auth: Auth | None = None
    timeout: float | tuple[float, float] = (10, 60)

    def __post_init__(self) -> None:
        # A user:password in the URL is a credential, not part of the address: it becomes
        # basic auth (as Go's net/http sends it) unless the user names other credentials,
        # so `server`, its repr and every message built from it never carry the password.
        self.server, url_credentials = split_url_credentials(self.server.rstrip("/"))
        if url_credentials is not None and self.auth is None:
            self.auth = BasicAuth(*url_credentials)
        if self.ca_data is not None and self.ca_file is None:
            self.ca_file = write_private_file(self.ca_data, ".crt")

    @property
    def auth_kind(self) -> str:
        """"token", "token-file", "basic", "exec", "client-certificate" or "none"."""
        if self.auth is not None:
            return getattr(self.auth, "kind", type(self.auth).__name__)
        if self.client_cert_file:
            return "client-certificate"
        return "none"

    def new_session(self) -> requests.Session:
        """A pooled requests.Session with this config's TLS, proxy and auth."""
        from kubenb.client.transport import new_session

        return new_session(self)

    def __repr__(self) -> str:
        return (f"Config(server={redact_url(self.server)!r}, context={self.context_name!r}, "
                f"namespace={self.namespace!r}, auth={self.auth_kind!r})")


# -- public loaders ------------------------------------------------------------------


def load_config(kubeconfig: str | os.PathLike[str] | Sequence[Any] | None = None,
                context: str | None = None) -> Config:
    """The config kubectl would use: kubeconfig if there is one, else in-cluster.

    `kubeconfig` is an explicit path or a list of paths (merged like $KUBECONFIG);
    None means $KUBECONFIG, then ~/.kube/config, then the pod's service account."""
    if kubeconfig is not None:
        return load_kube_config(kubeconfig, context)
    files, looked = _default_files()
    if files:
        merged = _merge([_read_file(path) for path in files])
        if not merged.is_empty() or context is not None or not _incluster_possible():
            return _build(merged, context)
    if _incluster_possible():
        if context is not None:
            raise KubeConfigError(
                f"context {context!r} was given but no kubeconfig was found ({looked})")
        return load_incluster_config(INCLUSTER_ROOT)
    host_set = bool(os.environ.get("KUBERNETES_SERVICE_HOST"))
    raise KubeConfigError(
        "no configuration found: looked for a kubeconfig "
        f"({looked}) and for an in-cluster service account "
        f"({'KUBERNETES_SERVICE_HOST is set' if host_set else 'KUBERNETES_SERVICE_HOST is not set'}"
        f", token at {os.path.join(INCLUSTER_ROOT, 'token')}"
        f"{'' if os.path.isfile(os.path.join(INCLUSTER_ROOT, 'token')) else ' missing'}); "
        "pass kubeconfig=, set $KUBECONFIG, or use kubenb.server.EmbeddedServer")


def load_kube_config(kubeconfig: str | os.PathLike[str] | Sequence[Any] | None = None,
                     context: str | None = None) -> Config:
    """The config from kubeconfig files only (never in-cluster)."""
    if kubeconfig is None:
        files, looked = _default_files()
        if not files:
            raise KubeConfigError(f"no kubeconfig found: looked for {looked}")
    elif isinstance(kubeconfig, (str, os.PathLike)):
        path = os.path.expanduser(os.fspath(kubeconfig))
        if not os.path.exists(path):
            raise KubeConfigError(f"{path}: kubeconfig file not found")
        files = [path]
    else:
        candidates = _dedupe(os.path.expanduser(os.fspath(p)) for p in kubeconfig)
        files = [p for p in candidates if os.path.exists(p)]
        if not files:
            raise KubeConfigError(
                f"no kubeconfig found: none of {', '.join(candidates) or '(empty list)'} exists")
    return _build(_merge([_read_file(path) for path in files]), context)


def config_from_dict(doc: Mapping[str, Any], source: str = "<dict>",
                     context: str | None = None) -> Config:
    """The config from a kubeconfig already parsed into a dict (relative paths: cwd)."""
    return _build(_merge([_parse_doc(doc, source, base_dir=None)]), context)


def load_incluster_config(root: str | os.PathLike[str] = INCLUSTER_ROOT,
                          env: Mapping[str, str] | None = None) -> Config:
    """The config of the pod we run in: its service-account token, CA and namespace.

    The token file is re-read when the kubelet rotates it. The namespace comes from
    $POD_NAMESPACE, else the mounted `namespace` file, else "default"."""
    environ = os.environ if env is None else env
    host = environ.get("KUBERNETES_SERVICE_HOST", "")
    port = environ.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise KubeConfigError(
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
            "KUBERNETES_SERVICE_PORT must be defined")
    root = os.fspath(root)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address, like net.JoinHostPort
    auth = TokenFileAuth(os.path.join(root, "token"), source="in-cluster")
    ca_path = os.path.join(root, "ca.crt")
    ca_file: str | None = ca_path
    if not os.path.isfile(ca_path):
        log.warning("in-cluster: expected the root CA at %s; using the system trust store",
                    ca_path)
        ca_file = None
    namespace = environ.get("POD_NAMESPACE", "")
    if not namespace:
        try:
            with open(os.path.join(root, "namespace"), encoding="utf-8") as handle:
                namespace = handle.read().strip()
        except OSError:
            namespace = ""
    return Config(server=f"https://{host}:{port}", namespace=namespace or "default",
                  source="in-cluster", ca_file=ca_file, auth=auth)


def _incluster_possible() -> bool:
    """client-go's inClusterClientConfig.Possible: service env set and a token mounted."""
    return (bool(os.environ.get("KUBERNETES_SERVICE_HOST"))
            and bool(os.environ.get("KUBERNETES_SERVICE_PORT"))
            and os.path.isfile(os.path.join(INCLUSTER_ROOT, "token")))


# -- reading files ---------------------------------------------------------------------


@dataclass
class _Entry:
    """One named cluster, user or context, and where it was defined (for messages)."""

    name: str
    body: dict[str, Any]
    file: str
    path: str  # e.g. "users[0].user"
    base_dir: str | None

    def where(self, field: str | None = None) -> str:
        return f"{self.file}: {self.path}" + (f".{field}" if field else "")


@dataclass
class _KubeConfig:
    files: list[str]
    clusters: dict[str, _Entry]
    users: dict[str, _Entry]
    contexts: dict[str, _Entry]
    current_context: str | None = None

    def is_empty(self) -> bool:
        return not (self.clusters or self.users or self.contexts or self.current_context)


def _default_files() -> tuple[list[str], str]:
    """The kubeconfig files to read when none is named, and a description for errors."""
    env = os.environ.get("KUBECONFIG", "")
    if env:
        candidates = _dedupe(p for p in env.split(os.pathsep) if p)
        found = [p for p in candidates if os.path.exists(p)]
        return found, f"$KUBECONFIG={env} ({len(found)} of {len(candidates)} files exist)"
    home = os.path.join(os.path.expanduser("~"), ".kube", "config")
    if os.path.exists(home):
        return [home], home
    return [], f"$KUBECONFIG (not set) and {home} (does not exist)"


def _dedupe(paths: Any) -> list[str]:
    seen: list[str] = []
    for path in paths:
        if path not in seen:
            seen.append(path)
    return seen


def _read_file(path: str) -> _KubeConfig:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except IsADirectoryError:
        raise KubeConfigError(f"{path}: is a directory, not a kubeconfig file") from None
    except OSError as err:
        raise KubeConfigError(f"{path}: cannot read kubeconfig: {err.strerror}") from None
    except UnicodeDecodeError:
        raise KubeConfigError(f"{path}: not UTF-8 text") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise KubeConfigError(f"{path}: invalid YAML: {_yaml_problem(err)}") from None
    base = os.path.dirname(os.path.abspath(path))
    return _parse_doc(doc if doc is not None else {}, path, base)


def _yaml_problem(err: yaml.YAMLError) -> str:
    """The YAML error without the quoted source line (which may hold a secret)."""
    if isinstance(err, yaml.MarkedYAMLError):
        mark = err.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        context = f"{err.context}: " if err.context else ""
        return f"{where}{context}{err.problem}"
    return type(err).__name__


def _parse_doc(doc: Any, file: str, base_dir: str | None) -> _KubeConfig:
    if not isinstance(doc, Mapping):
        raise KubeConfigError(
            f"{file}: not a kubeconfig: expected a mapping at the top, got {type(doc).__name__}")
    kind = doc.get("kind")
    if kind not in (None, "", "Config"):
        raise KubeConfigError(f"{file}: kind: expected Config, got {kind!r}")
    current = doc.get("current-context")
    if current is not None and not isinstance(current, str):
        raise KubeConfigError(f"{file}: current-context: expected a string")
    return _KubeConfig(
        files=[file],
        clusters=_parse_section(doc, "clusters", "cluster", file, base_dir),
        users=_parse_section(doc, "users", "user", file, base_dir),
        contexts=_parse_section(doc, "contexts", "context", file, base_dir),
        current_context=current or None,
    )


def _parse_section(doc: Mapping[str, Any], section: str, inner: str, file: str,
                   base_dir: str | None) -> dict[str, _Entry]:
    items = doc.get(section)
    if items is None:
        return {}
    if not isinstance(items, list):
        raise KubeConfigError(f"{file}: {section}: expected a list")
    entries: dict[str, _Entry] = {}
    for i, item in enumerate(items):
        here = f"{file}: {section}[{i}]"
        if not isinstance(item, Mapping):
            raise KubeConfigError(f"{here}: expected a mapping with name and {inner}")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise KubeConfigError(f"{here}.name: must be a non-empty string")
        if name in entries:
            raise KubeConfigError(f"{here}.name: duplicate name {name!r} in {section}")
        body = item.get(inner)
        if body is None:
            body = {}
        if not isinstance(body, Mapping):
            raise KubeConfigError(f"{here}.{inner}: expected a mapping")
        entries[name] = _Entry(name, dict(body), file, f"{section}[{i}].{inner}", base_dir)
    return entries


def _merge(configs: list[_KubeConfig]) -> _KubeConfig:
    """kubectl's merge: the first file to define a name (or current-context) wins."""
    merged = _KubeConfig(files=[], clusters={}, users={}, contexts={})
    for config in configs:
        merged.files.extend(config.files)
        for section in ("clusters", "users", "contexts"):
            target = getattr(merged, section)
            for name, entry in getattr(config, section).items():
                target.setdefault(name, entry)
        if merged.current_context is None:
            merged.current_context = config.current_context
    return merged


# -- building a Config -----------------------------------------------------------------


def _build(kc: _KubeConfig, context: str | None) -> Config:
    files = ", ".join(kc.files)
    name = context or kc.current_context
    if not name:
        raise KubeConfigError(
            f"{files}: current-context is not set and no context was given "
            f"(contexts: {', '.join(sorted(kc.contexts)) or 'none'})")
    ctx = kc.contexts.get(name)
    if ctx is None:
        origin = "" if context else " (current-context)"
        raise KubeConfigError(
            f"{files}: context {name!r}{origin} not found "
            f"(contexts: {', '.join(sorted(kc.contexts)) or 'none'})")
    cluster_name = _opt_str(ctx, "cluster")
    if not cluster_name:
        raise KubeConfigError(f"{ctx.where('cluster')}: context {name!r} names no cluster")
    cluster = kc.clusters.get(cluster_name)
    if cluster is None:
        raise KubeConfigError(
            f"{ctx.where('cluster')}: cluster {cluster_name!r} not found in {files}")
    user_name = _opt_str(ctx, "user")
    user: _Entry | None = None
    if user_name:
        user = kc.users.get(user_name)
        if user is None:
            raise KubeConfigError(f"{ctx.where('user')}: user {user_name!r} not found in {files}")
    namespace = _opt_str(ctx, "namespace") or "default"
    if len(namespace) > 63 or not _DNS_LABEL.match(namespace):
        raise KubeConfigError(
            f"{ctx.where('namespace')}: {namespace!r} is not a valid namespace (DNS label)")

    tls = _cluster_tls(cluster)
    client_cert, client_key = _client_cert(user) if user else (None, None)
    server = _server(cluster, tls_hint=bool(tls["ca_file"] or tls["insecure"] or client_cert))
    auth = _auth(user, cluster, server, tls, has_cert=client_cert is not None) if user else None
    config = Config(
        server=server, namespace=namespace, context_name=name, cluster_name=cluster_name,
        user_name=user_name, source=os.pathsep.join(kc.files), ca_file=tls["ca_file"],
        ca_data=tls["ca_data"], insecure_skip_tls_verify=tls["insecure"],
        tls_server_name=tls["tls_server_name"], proxy_url=tls["proxy_url"],
        client_cert_file=client_cert, client_key_file=client_key, auth=auth)
    log.debug("kubeconfig %s: context %s -> %r", config.source, name, config)
    return config


def _opt_str(entry: _Entry, field: str) -> str | None:
    value = entry.body.get(field)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise KubeConfigError(f"{entry.where(field)}: expected a string, got "
                              f"{type(value).__name__}")
    return value


def _opt_bool(entry: _Entry, field: str) -> bool:
    value = entry.body.get(field, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise KubeConfigError(f"{entry.where(field)}: expected true or false")
    return value


def _resolve(entry: _Entry, path: str) -> str:
    if entry.base_dir and not os.path.isabs(path):
        return os.path.normpath(os.path.join(entry.base_dir, path))
    return path


def _b64(entry: _Entry, field: str) -> bytes | None:
    value = _opt_str(entry, field)
    if value is None:
        return None
    try:
        return base64.b64decode("".join(value.split()), validate=True)
    except (binascii.Error, ValueError):
        raise KubeConfigError(f"{entry.where(field)}: invalid base64") from None


def _pem_file(entry: _Entry, field: str, what: str) -> str | None:
    value = _opt_str(entry, field)
    if value is None:
        return None
    path = _resolve(entry, value)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise KubeConfigError(f"{entry.where(field)}: file {path} not found") from None
    except OSError as err:
        raise KubeConfigError(f"{entry.where(field)}: cannot read {path}: {err.strerror}") from None
    _check_pem(data, entry.where(field), what, f" in {path}")
    return path


def _check_pem(data: bytes, where: str, what: str, detail: str = "") -> None:
    if what == "key":
        ok = b"-----BEGIN" in data and b"PRIVATE KEY-----" in data
    else:
        ok = b"-----BEGIN CERTIFICATE-----" in data
    if not ok:
        noun = "private key" if what == "key" else "certificate"
        raise KubeConfigError(f"{where}: no PEM {noun} found{detail}")


def _cluster_tls(cluster: _Entry) -> dict[str, Any]:
    ca_data = _b64(cluster, "certificate-authority-data")
    if ca_data is not None:
        _check_pem(ca_data, cluster.where("certificate-authority-data"), "certificate")
        ca_file: str | None = write_private_file(ca_data, ".crt")
    else:
        ca_file = _pem_file(cluster, "certificate-authority", "certificate")
    insecure = _opt_bool(cluster, "insecure-skip-tls-verify")
    if insecure and ca_file:
        raise KubeConfigError(
            f"{cluster.where()}: insecure-skip-tls-verify is set together with a "
            f"certificate-authority; specifying a root certificates file with the insecure "
            f"flag is not allowed")
    proxy_url = _opt_str(cluster, "proxy-url")
    if proxy_url is not None:
        parts = urlsplit(proxy_url)
        if parts.scheme not in _PROXY_SCHEMES or not parts.hostname:
            raise KubeConfigError(
                f"{cluster.where('proxy-url')}: {redact_url(proxy_url)!r} is not a "
                f"{', '.join(_PROXY_SCHEMES)} URL")
    return {"ca_file": ca_file, "ca_data": ca_data, "insecure": insecure,
            "tls_server_name": _opt_str(cluster, "tls-server-name"), "proxy_url": proxy_url}


def _server(cluster: _Entry, tls_hint: bool) -> str:
    value = _opt_str(cluster, "server")
    if not value:
        raise KubeConfigError(f"{cluster.where('server')}: no server found for cluster "
                              f"{cluster.name!r}")
    url = value.strip()
    if "://" not in url:
        url = ("https://" if tls_hint else "http://") + url  # client-go's DefaultServerURL
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise KubeConfigError(
            f"{cluster.where('server')}: {redact_url(value)!r} has an invalid port") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise KubeConfigError(
            f"{cluster.where('server')}: {redact_url(value)!r} is not an http(s) URL")
    return url.rstrip("/")


def _client_cert(user: _Entry) -> tuple[str | None, str | None]:
    cert_data = _b64(user, "client-certificate-data")
    key_data = _b64(user, "client-key-data")
    for data, file_field in ((cert_data, "client-certificate"), (key_data, "client-key")):
        if data is not None and _opt_str(user, file_field):
            raise KubeConfigError(
                f"{user.where()}: {file_field}-data and {file_field} are both specified; "
                f"use one")
    cert: str | None
    key: str | None
    if cert_data is not None:
        _check_pem(cert_data, user.where("client-certificate-data"), "certificate")
        cert = write_private_file(cert_data, ".crt")
    else:
        cert = _pem_file(user, "client-certificate", "certificate")
    if key_data is not None:
        _check_pem(key_data, user.where("client-key-data"), "key")
        key = write_private_file(key_data, ".key")
    else:
        key = _pem_file(user, "client-key", "key")
    if (cert is None) != (key is None):
        missing = "client-key(-data)" if key is None else "client-certificate(-data)"
        raise KubeConfigError(f"{user.where()}: {missing} must be given with the other half "
                              f"of the client certificate pair")
    return cert, key


def _auth(user: _Entry, cluster: _Entry, server: str, tls: dict[str, Any],
          has_cert: bool) -> Auth | None:
    provider = user.body.get("auth-provider")
    if provider:
        name = provider.get("name") if isinstance(provider, Mapping) else None
        raise KubeConfigError(
            f"{user.where('auth-provider')}: the {name or 'legacy'!r} auth provider is not "
            f"supported (client-go removed gcp and azure); use an exec credential plugin such "
            f"as gke-gcloud-auth-plugin or kubelogin")
    for field in ("as", "as-uid", "as-groups", "as-user-extra"):
        if user.body.get(field):
            raise KubeConfigError(f"{user.where(field)}: impersonation is not supported by kubenb")
    token = _opt_str(user, "token")
    token_file = _opt_str(user, "tokenFile")
    username = _opt_str(user, "username")
    password = _opt_str(user, "password")
    methods = []
    if token or token_file:
        methods.append("token")
    if username or password:
        methods.append("basicAuth")
    if len(methods) > 1:
        raise KubeConfigError(f"{user.where()}: more than one authentication method found "
                              f"({', '.join(methods)}); only one is allowed")
    exec_conf = user.body.get("exec")
    if exec_conf and (methods or has_cert):
        log.debug("%s: exec plugin ignored: the user has static credentials", user.where())
        exec_conf = None
    if token_file:
        # client-go prefers the file (re-read as it rotates) over a static token.
        return TokenFileAuth(_resolve(user, token_file),
                             source=f"{user.where('tokenFile')} (user {user.name!r})")
    if token:
        return TokenAuth(token, source=f"{user.where('token')} (user {user.name!r})")
    if username or password:
        if not username:
            raise KubeConfigError(f"{user.where('username')}: must be given with password")
        return BasicAuth(username, password or "")
    if exec_conf:
        if not isinstance(exec_conf, Mapping):
            raise KubeConfigError(f"{user.where('exec')}: expected a mapping")
        conf = dict(exec_conf)
        command = conf.get("command")
        if isinstance(command, str) and os.sep in command:
            conf["command"] = _resolve(user, command)  # only path-like commands, like kubectl
        return ExecAuth(conf, source=user.where("exec"),
                        cluster=_exec_cluster_info(cluster, server, tls))
    return None


def _exec_cluster_info(cluster: _Entry, server: str, tls: dict[str, Any]) -> dict[str, Any]:
    """The `spec.cluster` given to exec plugins with provideClusterInfo (client-go's shape)."""
    info: dict[str, Any] = {"server": server}
    if tls["tls_server_name"]:
        info["tls-server-name"] = tls["tls_server_name"]
    if tls["insecure"]:
        info["insecure-skip-tls-verify"] = True
    if tls["ca_file"]:
        with open(tls["ca_file"], "rb") as handle:
            info["certificate-authority-data"] = base64.b64encode(handle.read()).decode()
    if tls["proxy_url"]:
        info["proxy-url"] = tls["proxy_url"]
    if _opt_bool(cluster, "disable-compression"):
        info["disable-compression"] = True
    extensions = cluster.body.get("extensions")
    if isinstance(extensions, list):
        for ext in extensions:
            if isinstance(ext, Mapping) and ext.get("name") == _EXEC_EXTENSION:
                info["config"] = ext.get("extension")
    return info
