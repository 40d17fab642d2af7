"""Signing of banking API requests for the access gateway (see SIGNING.md in the gateway's repository).

The gateway rebuilds the RFC 9421 signature base from the request it *receives*, so every value
signed here must be exactly what the HTTP client puts on the wire. That is why the auth classes
(RequestsAuth, HttpxAuth) sign the prepared request, and why sign_request() wants the URL in the form
it will be sent (percent-encoding and all).
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
import secrets
import time
from typing import Dict, Iterable, List, Mapping, Optional, Tuple, Union
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import load_pem_private_key, load_ssh_private_key

#: The header that names the service account; its value is also the signature's keyid.
ACCESS_ID_HEADER = "x-access-id"
#: What the gateway requires every signature to cover, in the order this library covers it.
REQUIRED_COMPONENTS: Tuple[str, ...] = ("@method", "@authority", "@path", "@query", ACCESS_ID_HEADER)
#: Also required whenever the request has a body.
BODY_COMPONENT = "content-digest"
#: The signature label; the gateway selects the signature by keyid, so any label works.
LABEL = "sig1"
#: The header fields sign_parts() writes; a request's own values of them are replaced, never sent twice.
SIGNING_HEADERS: Tuple[str, ...] = (ACCESS_ID_HEADER, BODY_COMPONENT, "signature-input", "signature")
#: Content-Digest algorithms the gateway accepts, with their hashlib names.
DIGEST_ALGORITHMS: Dict[str, str] = {"sha-256": "sha256", "sha-512": "sha512"}

#: A key object, or the text of a key file (OpenSSH or PKCS#8 PEM).
PrivateKeyLike = Union[Ed25519PrivateKey, str, bytes]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_FIELD_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9a-z-]+$")
_OBS_FOLD = re.compile(r"\r?\n[ \t]+")


def load_private_key(data: Union[str, bytes], password: Optional[bytes] = None) -> Ed25519PrivateKey:
    """Reads an Ed25519 private key from OpenSSH (``ssh-keygen -t ed25519``) or PKCS#8 PEM text
    (``gatewayctl keygen``, ``openssl genpkey -algorithm ed25519``).

    Any other key type is refused here, because the gateway only registers ``ssh-ed25519`` keys and
    a signature made with another key would only fail later, at the gateway, as signature_invalid.
    """
    text = (data.encode("utf-8") if isinstance(data, str) else bytes(data)).strip()
    key: object
    if text.startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----"):
        key = load_ssh_private_key(text, password=password)
    else:
        key = load_pem_private_key(text, password=password)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"the key is {type(key).__name__}, not Ed25519 (the gateway accepts only ssh-ed25519 keys)")
    return key


def load_private_key_file(path: Union[str, "os.PathLike[str]"], password: Optional[bytes] = None) -> Ed25519PrivateKey:
    """load_private_key() on the contents of a key file."""
    with open(path, "rb") as file:
        return load_private_key(file.read(), password)


def _as_key(private_key: PrivateKeyLike) -> Ed25519PrivateKey:
    return private_key if isinstance(private_key, Ed25519PrivateKey) else load_private_key(private_key)


def content_digest(body: bytes, algorithm: str = "sha-256") -> str:
    """The RFC 9530 Content-Digest value, e.g. ``sha-256=:<base64>:``; the gateway checks it
    against the exact bytes it forwards, and the signature covers it, so the body cannot be swapped."""
    if algorithm not in DIGEST_ALGORITHMS:
        raise ValueError(f"unsupported digest algorithm {algorithm!r} (the gateway accepts sha-256 and sha-512)")
    digest = hashlib.new(DIGEST_ALGORITHMS[algorithm], body).digest()
    return f"{algorithm}=:{base64.b64encode(digest).decode('ascii')}:"


def sf_string(value: str) -> str:
    """An RFC 8941 String: printable ASCII only (anything else cannot be sent in the header)."""
    if any(ord(c) < 0x20 or ord(c) > 0x7E for c in value):
        raise ValueError(f"{value!r}: structured field strings are printable ASCII only")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def authority_of(url: str) -> str:
    """The Host an HTTP client sends for ``url`` (and so the signed @authority): host in lower case,
    ``:port`` only when it is not the scheme's default, IPv6 addresses in brackets."""
    parts = urlsplit(url)
    host = parts.hostname  # lower case, without brackets or userinfo
    if not host or parts.scheme.lower() not in _DEFAULT_PORTS:
        raise ValueError(f"{url!r} is not an absolute http(s) URL")
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    return host if port is None or port == _DEFAULT_PORTS[parts.scheme.lower()] else f"{host}:{port}"


def signature_params(components: Iterable[str], *, created: int, nonce: str, keyid: str, expires: Optional[int] = None) -> str:
    """The Signature-Input member value, which is also the ``@signature-params`` line of the base.
    Parameters come in the order the gateway's own signer uses, so both produce identical headers."""
    params = "(" + " ".join(sf_string(name) for name in components) + ")"
    params += f";created={int(created)}"
    if expires is not None:
        params += f";expires={int(expires)}"
    return params + f';nonce={sf_string(nonce)};alg="ed25519";keyid={sf_string(keyid)}'


def signature_base(components: Iterable[Tuple[str, str]], params: str) -> str:
    """RFC 9421 section 2.5: ``"<name>": <value>`` per covered component, then the
    ``"@signature-params"`` line; joined with LF, no trailing newline."""
    lines: List[str] = []
    for name, value in components:
        # A line break in a value would let it forge the next line of the base.
        if "\r" in value or "\n" in value:
            raise ValueError(f"the component {name!r} contains a line break")
        lines.append(f"{sf_string(name)}: {value}")
    lines.append(f'"@signature-params": {params}')
    return "\n".join(lines)


def _field_value(headers: Mapping[str, str], name: str) -> str:
    """RFC 9421 section 2.1: the header's value, obs-fold replaced by a space, trimmed."""
    for key, value in headers.items():
        if key.lower() == name:
            return _OBS_FOLD.sub(" ", value).strip()
    raise ValueError(f"the covered header {name!r} is not in the request")


def sign_parts(
    method: str,
    authority: str,
    target: str,
    *,
    access_id: str,
    private_key: PrivateKeyLike,
    headers: Optional[Mapping[str, str]] = None,
    body: Optional[bytes] = None,
    cover_headers: Iterable[str] = (),
    created: Optional[int] = None,
    nonce: Optional[str] = None,
    expires: Optional[int] = None,
    digest_algorithm: str = "sha-256",
) -> Dict[str, str]:
    """Signs a request given as it goes on the wire: ``authority`` is the Host header's value and
    ``target`` the path and query (``/v1/transactions?page=2``). For HTTP clients other than
    requests and httpx; returns the headers to add, like sign_request()."""
    path, _, query = target.partition("?")
    added: Dict[str, str] = {ACCESS_ID_HEADER: access_id}
    if body:
        added[BODY_COMPONENT] = content_digest(body, digest_algorithm)
    fields = {**{k.lower(): v for k, v in (headers or {}).items()}, **added}

    names = [*REQUIRED_COMPONENTS, *([BODY_COMPONENT] if body else [])]
    for extra in cover_headers:
        name = extra.lower()
        if not _FIELD_NAME.match(name) or name in names:
            raise ValueError(f"cannot cover {extra!r} (not a field name, or already covered)")
        names.append(name)
    derived = {"@method": method.upper(), "@authority": authority.strip().lower(), "@path": path or "/", "@query": "?" + query}
    values = [(name, derived[name] if name in derived else _field_value(fields, name)) for name in names]

    params = signature_params(
        names,
        created=int(time.time()) if created is None else created,
        # 128 random bits, as SIGNING.md asks; the gateway refuses a nonce it has seen for this Access ID.
        nonce=secrets.token_urlsafe(16) if nonce is None else nonce,
        keyid=access_id,
        expires=expires,
    )
    signature = _as_key(private_key).sign(signature_base(values, params).encode("utf-8"))
    added["signature-input"] = f"{LABEL}={params}"
    added["signature"] = f"{LABEL}=:{base64.b64encode(signature).decode('ascii')}:"
    return added


def sign_request(
    method: str,
    url: str,
    *,
    access_id: str,
    private_key: PrivateKeyLike,
    headers: Optional[Mapping[str, str]] = None,
    body: Union[bytes, str, None] = None,
    cover_headers: Iterable[str] = (),
    created: Optional[int] = None,
    nonce: Optional[str] = None,
    expires: Optional[int] = None,
    digest_algorithm: str = "sha-256",
) -> Dict[str, str]:
    """The headers to add to a request so the gateway accepts it: ``x-access-id``,
    ``content-digest`` (when there is a body), ``signature-input`` and ``signature``.

    ``url`` is absolute and as it will be sent (already percent-encoded). The signed @authority is
    the ``Host`` in ``headers`` if there is one, else the URL's host the way clients send it.
    ``body`` is the exact bytes to send (a str is sent as UTF-8). ``headers`` matter only for the
    fields named in ``cover_headers``. ``created``/``nonce`` default to now and a random value;
    fixing them gives reproducible output (tests, documentation).
    """
    data = body.encode("utf-8") if isinstance(body, str) else body
    parts = urlsplit(url)
    host = next((v for k, v in (headers or {}).items() if k.lower() == "host"), None)
    return sign_parts(
        method,
        host if host is not None else authority_of(url),
        parts.path + ("?" + parts.query if parts.query else ""),
        access_id=access_id,
        private_key=private_key,
        headers=headers,
        body=data,
        cover_headers=cover_headers,
        created=created,
        nonce=nonce,
        expires=expires,
        digest_algorithm=digest_algorithm,
    )
