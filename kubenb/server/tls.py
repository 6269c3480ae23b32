"""TLS for the embedded server: a throwaway CA and serving certificate, or the user's own.

Runtime dependencies stop at requests/pyyaml, so a certificate is made with whatever
the machine has: `trustme` (the test extra), else `cryptography`, else the `openssl`
command line. kubectl and the official client verify the server against the CA, so
the serving certificate names 127.0.0.1, localhost and kubernetes.local.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import shutil
import ssl
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kubenb.errors import TLSSetupError

__all__ = [
    "BACKENDS",
    "SERVING_NAMES",
    "CertBundle",
    "TLSSetupError",
    "generate_self_signed",
    "load_user_certificate",
]

SERVING_NAMES = ("127.0.0.1", "localhost", "kubernetes.local")
BACKENDS = ("trustme", "cryptography", "openssl")
_VALID_DAYS = 30


@dataclass(frozen=True)
class CertBundle:
    """PEM bytes for one serving identity; the key never shows in a repr."""

    cert_pem: bytes  # the serving certificate (followed by any intermediates)
    key_pem: bytes = field(repr=False)
    ca_pem: bytes | None = None  # what clients should trust; None: the system store
    backend: str = ""  # how it was made: trustme, cryptography, openssl or "user"

    def __repr__(self) -> str:
        return f"CertBundle(backend={self.backend!r}, ca={'yes' if self.ca_pem else 'system'})"

    def server_context(self) -> ssl.SSLContext:
        """A server-side SSLContext (TLS >= 1.2, ALPN http/1.1 only: no HTTP/2 here)."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.set_alpn_protocols(["http/1.1"])
        # load_cert_chain reads files only: write them to a private dir, load, delete.
        tmp = Path(tempfile.mkdtemp(prefix="kubenb-tls-"))
        try:
            cert_file, key_file = tmp / "tls.crt", tmp / "tls.key"
            _write_private(cert_file, self.cert_pem)
            _write_private(key_file, self.key_pem)
            try:
                ctx.load_cert_chain(cert_file, key_file)
            except (ssl.SSLError, ValueError) as exc:
                raise TLSSetupError(
                    f"the TLS certificate and key do not load ({self.backend or 'given'} "
                    f"certificate): {exc}") from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return ctx


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


# -- backends ---------------------------------------------------------------------------


def _with_trustme(names: Sequence[str]) -> CertBundle:
    import trustme

    ca = trustme.CA(organization_name="kubenb")
    leaf = ca.issue_cert(*names, common_name="kubenb-apiserver")
    chain = b"".join(blob.bytes() for blob in leaf.cert_chain_pems)
    return CertBundle(chain, leaf.private_key_pem.bytes(), ca.cert_pem.bytes(), "trustme")


def _with_cryptography(names: Sequence[str]) -> CertBundle:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=_VALID_DAYS)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kubenb"),
                         x509.NameAttribute(NameOID.COMMON_NAME, "kubenb-ca")])
    ca_ski = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name).issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start).not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=True, content_commitment=False, key_encipherment=False,
            data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
            encipher_only=False, decipher_only=False), critical=True)
        .add_extension(ca_ski, critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    alt_names: list[x509.GeneralName] = [
        x509.IPAddress(ipaddress.ip_address(n)) if _is_ip(n) else x509.DNSName(n)
        for n in names]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubenb-apiserver")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start).not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=True, content_commitment=False, key_encipherment=True,
            data_encipherment=False, key_agreement=False, key_cert_sign=False, crl_sign=False,
            encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski),
                       critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                       critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    key_pem = key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return CertBundle(cert.public_bytes(pem), key_pem, ca_cert.public_bytes(pem), "cryptography")


def _openssl(args: list[str], cwd: Path) -> None:
    try:
        subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True,
                       timeout=60)
    except subprocess.CalledProcessError as exc:
        detail = exc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise TLSSetupError(f"`openssl {args[0]}` failed while making the server certificate: "
                            f"{detail[-1] if detail else exc}") from None


def _with_openssl(names: Sequence[str]) -> CertBundle:
    if shutil.which("openssl") is None:
        raise FileNotFoundError("openssl")
    tmp = Path(tempfile.mkdtemp(prefix="kubenb-openssl-"))
    try:
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        _openssl(["req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt",
                  "-days", str(_VALID_DAYS), "-subj", "/O=kubenb/CN=kubenb-ca",
                  "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0",
                  "-addext", "keyUsage=critical,digitalSignature,keyCertSign,cRLSign"], tmp)
        _openssl(["req", "-new", *ec, "-keyout", "tls.key", "-out", "tls.csr",
                  "-subj", "/CN=kubenb-apiserver"], tmp)
        san = ",".join(f"IP:{n}" if _is_ip(n) else f"DNS:{n}" for n in names)
        (tmp / "ext.cnf").write_text(
            f"subjectAltName={san}\nbasicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature,keyEncipherment\n"
            "extendedKeyUsage=serverAuth\nauthorityKeyIdentifier=keyid\n"
            "subjectKeyIdentifier=hash\n")
        serial = "0x" + os.urandom(16).hex()
        _openssl(["x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                  "-set_serial", serial, "-days", str(_VALID_DAYS), "-sha256",
                  "-extfile", "ext.cnf", "-out", "tls.crt"], tmp)
        return CertBundle((tmp / "tls.crt").read_bytes(), (tmp / "tls.key").read_bytes(),
                          (tmp / "ca.crt").read_bytes(), "openssl")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_MAKERS: dict[str, Callable[[Sequence[str]], CertBundle]] = {
    "trustme": _with_trustme, "cryptography": _with_cryptography, "openssl": _with_openssl}


def generate_self_signed(names: Sequence[str] = SERVING_NAMES,
                         backends: Sequence[str] = BACKENDS) -> CertBundle:
    """A fresh CA and a serving certificate for `names`, from the first backend that works.

    A backend is skipped when it is not installed (ImportError, no `openssl` binary); a
    backend that is installed but fails raises, so a broken setup is not hidden.
    """
    for backend in backends:
        maker = _MAKERS.get(backend)
        if maker is None:
            raise TLSSetupError(f"unknown certificate backend {backend!r}; "
                                f"choose from {', '.join(BACKENDS)}")
        with contextlib.suppress(ImportError, FileNotFoundError):
            return maker(list(dict.fromkeys(names)))
    raise TLSSetupError(
        "tls=True needs a way to make a certificate, and none of "
        f"{', '.join(backends) or 'the backends'} is available: "
        "`pip install trustme` (or `pip install cryptography`), or install the openssl "
        "command line, or pass tls=(certfile, keyfile) with your own certificate")


def load_user_certificate(certfile: str | os.PathLike[str], keyfile: str | os.PathLike[str],
                          ca_file: str | os.PathLike[str] | None = None) -> CertBundle:
    """The user's own certificate and key (and optionally the CA clients should trust)."""
    def read(kind: str, path: str | os.PathLike[str]) -> bytes:
        try:
            return Path(path).read_bytes()
        except OSError as exc:
            raise TLSSetupError(f"cannot read the TLS {kind} file {os.fspath(path)!r}: "
                                f"{exc.strerror or exc}") from None

    cert = read("certificate", certfile)
    key = read("key", keyfile)
    ca = read("CA", ca_file) if ca_file is not None else None
    if b"-----BEGIN CERTIFICATE-----" not in cert:
        raise TLSSetupError(f"the TLS certificate file {os.fspath(certfile)!r} holds no PEM "
                            "certificate")
    if ca_file is not None and ca is not None and b"-----BEGIN CERTIFICATE-----" not in ca:
        raise TLSSetupError(f"the TLS CA file {os.fspath(ca_file)!r} holds no PEM certificate")
    bundle = CertBundle(cert, key, ca, "user")
    try:
        bundle.server_context()  # fail now, naming the files, rather than at start()
    except TLSSetupError as exc:
        raise TLSSetupError(f"{exc} (certfile={os.fspath(certfile)!r}, "
                            f"keyfile={os.fspath(keyfile)!r})") from None
    return bundle
