"""ServiceAccount tokens: signed, expiring JWTs with the claims kube-apiserver v1.32 writes.

A TokenRequest (`serviceaccounts/token`, what `kubectl create token` sends) gets a JWT
whose claims are the real ones: `iss`, `sub` (`system:serviceaccount:NS:NAME`), `aud`,
`exp`/`iat`/`nbf`, `jti`, and the `kubernetes.io` claim naming the namespace, the
ServiceAccount (name and uid) and the object the token is bound to (a Pod, and the
Node it is scheduled on, or a Secret). The server checks such a token on every request that
carries it, and for a TokenReview.

Signing: RS256 with a 2048-bit RSA key, as the real server signs, when `cryptography`
is installed (it is wherever `trustme` is, the test extra that makes TLS certificates);
the public key is then served as JWKS at /openid/v1/jwks. Without it, HS256 with a
random key: the runtime dependencies stop at the standard library for this, and
HMAC-SHA256 is what the standard library can sign with. Either way only this server
can check its tokens, so TokenReview is the way to ask. The key is made on the first
token (an RSA key takes a moment) and lives as long as the server object.

Time comes from a `Clock`: JWT times are the wall time when the issuer was made plus
the clock's seconds since then, so a FakeClock expires tokens without waiting.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from kubenb.clock import Clock, RealClock

__all__ = [
    "DEFAULT_EXPIRATION_SECONDS",
    "DEFAULT_ISSUER",
    "InvalidToken",
    "TokenClaims",
    "TokenIssuer",
    "looks_like_jwt",
]

DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"
"""The issuer (and default audience) the real server is usually run with."""
DEFAULT_EXPIRATION_SECONDS = 3600  # TokenRequestSpec's default


class InvalidToken(Exception):
    """A bearer token this server did not issue, or cannot accept now (the message says
    why, as the real authenticator's error does; it never holds the token)."""


@dataclass(frozen=True)
class TokenClaims:
    """The claims of a verified token (the parts the authenticator reads)."""

    subject: str
    audiences: tuple[str, ...]
    expires: int
    jti: str
    kubernetes: dict[str, Any]

    @property
    def namespace(self) -> str:
        return str(self.kubernetes.get("namespace") or "")

    def ref(self, kind: str) -> dict[str, str] | None:
        """The `{name, uid}` of the `serviceaccount`, `pod`, `secret` or `node` claim."""
        value = self.kubernetes.get(kind)
        return value if isinstance(value, dict) else None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def looks_like_jwt(token: str) -> bool:
    """Three dot-separated base64url parts, the first a JSON header (cheap, unverified)."""
    return token.count(".") == 2 and token.startswith("eyJ")


class _Signer:
    """RS256 with `cryptography`, else HS256 (see the module docstring)."""

    def __init__(self) -> None:
        try:
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import padding, rsa
        except ImportError:
            self.algorithm = "HS256"
            self._secret = secrets.token_bytes(32)
            self.key_id = _b64(hashlib.sha256(b"kubenb-hs256" + self._secret).digest()[:16])
            self._public_jwk: dict[str, str] | None = None
            return
        self.algorithm = "RS256"
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._rsa = key
        self._padding, self._hash = padding.PKCS1v15(), hashes.SHA256()
        public = key.public_key()
        der = public.public_bytes(serialization.Encoding.DER,
                                  serialization.PublicFormat.SubjectPublicKeyInfo)
        self.key_id = _b64(hashlib.sha256(der).digest())  # what kube-apiserver's keyID is
        numbers = public.public_numbers()
        self._public_jwk = {
            "use": "sig", "kty": "RSA", "kid": self.key_id, "alg": "RS256",
            "n": _b64(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
            "e": _b64(numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big"))}

    def sign(self, data: bytes) -> bytes:
        if self.algorithm == "HS256":
            return hmac.new(self._secret, data, hashlib.sha256).digest()
        return bytes(self._rsa.sign(data, self._padding, self._hash))

    def verify(self, data: bytes, signature: bytes) -> bool:
        if self.algorithm == "HS256":
            return hmac.compare_digest(self.sign(data), signature)
        from cryptography.exceptions import InvalidSignature

        try:
            self._rsa.public_key().verify(signature, data, self._padding, self._hash)
        except InvalidSignature:
            return False
        return True

    def jwks(self) -> dict[str, Any]:
        return {"keys": [self._public_jwk] if self._public_jwk else []}


class TokenIssuer:
    """Issues and verifies one server's ServiceAccount tokens."""

    def __init__(self, issuer: str = DEFAULT_ISSUER, clock: Clock | None = None) -> None:
        self.issuer = issuer
        self.audiences: tuple[str, ...] = (issuer,)  # --api-audiences defaults to the issuer
        self._clock = clock or RealClock()
        self._epoch = time.time()
        self._start = self._clock.now()
        self._signer: _Signer | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"TokenIssuer(issuer={self.issuer!r})"

    def now(self) -> float:
        """Wall time as this issuer sees it (Unix seconds)."""
        return self._epoch + self._clock.since(self._start)

    @property
    def signer(self) -> _Signer:
        with self._lock:
            if self._signer is None:
                self._signer = _Signer()
            return self._signer

    @property
    def algorithm(self) -> str:
        return self.signer.algorithm

    def jwks(self) -> dict[str, Any]:
        """The public keys (JWKS) that verify this issuer's tokens (none with HS256)."""
        return self.signer.jwks()

    def issue(self, namespace: str, service_account: dict[str, Any], audiences: list[str],
              expiration_seconds: int, bound: dict[str, dict[str, str]] | None = None
              ) -> tuple[str, int]:
        """(token, expiry as Unix seconds) for `service_account`, bound to `bound`
        (claim name -> {name, uid}: `pod`, `node`, `secret`)."""
        meta = service_account.get("metadata") or {}
        now = int(self.now())
        expires = now + expiration_seconds
        kubernetes: dict[str, Any] = {"namespace": namespace}
        for claim, ref in (bound or {}).items():
            kubernetes[claim] = ref
        kubernetes["serviceaccount"] = {"name": meta.get("name", ""),
                                        "uid": meta.get("uid", "")}
        claims = {"aud": list(audiences), "exp": expires, "iat": now, "iss": self.issuer,
                  "jti": str(uuid.uuid4()), "kubernetes.io": dict(sorted(kubernetes.items())),
                  "nbf": now, "sub": f"system:serviceaccount:{namespace}:{meta.get('name')}"}
        signer = self.signer
        header = {"alg": signer.algorithm, "kid": signer.key_id}
        signing_input = (_b64(json.dumps(header, separators=(",", ":")).encode()) + "."
                         + _b64(json.dumps(claims, separators=(",", ":")).encode()))
        signature = signer.sign(signing_input.encode("ascii"))
        return f"{signing_input}.{_b64(signature)}", expires

    def verify(self, token: str) -> TokenClaims:
        """The claims of a token this issuer signed and that is valid now; else
        InvalidToken saying why (the messages are the real authenticator's)."""
        try:
            head, body, sig = token.split(".")
            header = json.loads(_unb64(head))
            claims = json.loads(_unb64(body))
            signature = _unb64(sig)
        except (ValueError, UnicodeDecodeError) as exc:
            raise InvalidToken("invalid bearer token: not a JWT") from exc
        if not isinstance(header, dict) or not isinstance(claims, dict):
            raise InvalidToken("invalid bearer token: not a JWT")
        if claims.get("iss") != self.issuer:
            raise InvalidToken("invalid bearer token: not issued by this server")
        signer = self.signer
        if header.get("alg") != signer.algorithm or not signer.verify(
                f"{head}.{body}".encode("ascii"), signature):
            raise InvalidToken("invalid bearer token, square/go-jose: error in cryptographic "
                               "primitive")
        now = self.now()
        try:
            expires, not_before = int(claims["exp"]), int(claims.get("nbf", 0))
            issued = int(claims.get("iat", 0))
        except (KeyError, TypeError, ValueError):
            raise InvalidToken("invalid bearer token: no expiry") from None
        if now > expires:
            raise InvalidToken("service account token has expired")
        if now < not_before:
            raise InvalidToken("service account token is not valid yet")
        if now < issued:
            raise InvalidToken("service account token is issued in the future")
        audiences = claims.get("aud")
        if isinstance(audiences, str):
            audiences = [audiences]
        kubernetes = claims.get("kubernetes.io")
        if not isinstance(kubernetes, dict) or not isinstance(audiences, list):
            raise InvalidToken("service account token claims could not be read")
        return TokenClaims(str(claims.get("sub") or ""), tuple(str(a) for a in audiences),
                           expires, str(claims.get("jti") or ""), kubernetes)
