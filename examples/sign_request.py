#!/usr/bin/env python3
"""Signs one banking API request for the gateway and sends it (RFC 9421 ed25519 + RFC 9530).

    ACCESS_ID=<uuid> PRIVATE_KEY=key.pem python3 examples/sign_request.py GET http://127.0.0.1:8080/v1/balance
    ACCESS_ID=<uuid> PRIVATE_KEY=key.pem python3 examples/sign_request.py POST http://127.0.0.1:8080/v1/transfers '{"amount":"10.00"}'

Needs only the standard library and the `cryptography` package (Debian: python3-cryptography).
PRIVATE_KEY is a PKCS#8 PEM Ed25519 key (gatewayctl keygen, or openssl genpkey -algorithm ed25519).
Prints the response body; exits 1 on HTTP >= 400. See SIGNING.md for the scheme.
"""
import base64
import hashlib
import os
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives.serialization import load_pem_private_key


def sf_string(value: str) -> str:
    """An RFC 8941 String: printable ASCII, with " and \\ escaped."""
    if any(ord(c) < 0x20 or ord(c) > 0x7E for c in value):
        raise ValueError("structured field strings are printable ASCII only")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def sign_headers(method: str, url: str, body: bytes, access_id: str, private_key) -> dict:
    """The headers that make the gateway accept the request."""
    parts = urllib.parse.urlsplit(url)
    # urllib sends Host as host[:port] from the URL, so that is the signed @authority.
    authority = parts.netloc.lower()
    path = parts.path or "/"
    headers = {"x-access-id": access_id}
    components = [
        ("@method", method),
        ("@authority", authority),
        ("@path", path),
        ("@query", "?" + parts.query),
        ("x-access-id", access_id),
    ]
    if body:
        digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
        headers["content-digest"] = f"sha-256=:{digest}:"
        components.append(("content-digest", headers["content-digest"]))

    params = (
        "(" + " ".join(sf_string(name) for name, _ in components) + ")"
        + f";created={int(time.time())}"
        + f";nonce={sf_string(secrets.token_urlsafe(16))}"
        + ';alg="ed25519"'
        + f";keyid={sf_string(access_id)}"
    )
    lines = [f"{sf_string(name)}: {value}" for name, value in components]
    lines.append(f'"@signature-params": {params}')
    base = "\n".join(lines).encode("ascii")

    signature = base64.b64encode(private_key.sign(base)).decode()
    headers["signature-input"] = f"sig1={params}"
    headers["signature"] = f"sig1=:{signature}:"
    return headers


class RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect would carry the Access ID, the signature and the body to its Location: never follow one."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # urllib then raises HTTPError with the 3xx answer


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    method, url = sys.argv[1].upper(), sys.argv[2]
    body = sys.argv[3].encode() if len(sys.argv) > 3 else b""
    with open(os.environ["PRIVATE_KEY"], "rb") as f:
        private_key = load_pem_private_key(f.read(), password=None)

    headers = sign_headers(method, url, body, os.environ["ACCESS_ID"], private_key)
    if body:
        headers["content-type"] = "application/json"
    request = urllib.request.Request(url, data=body or None, method=method, headers=headers)
    try:
        with urllib.request.build_opener(RefuseRedirects).open(request) as response:
            sys.stdout.write(response.read().decode())
            return 0
    except urllib.error.HTTPError as error:
        sys.stdout.write(error.read().decode())
        location = error.headers.get("location")
        print(f"\nHTTP {error.code}" + (" (redirect not followed: it would carry the signature)" if location else ""), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
