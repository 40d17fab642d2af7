"""Unit tests against externally anchored values: RFC 9421 Appendix B.2.6 (key B.1.4), RFC 9530's
example digests and the worked example of SIGNING.md. Standard library only:

    python -m unittest discover -s clients/python/tests
"""
from __future__ import annotations

import base64
import importlib.util
import unittest

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from access_gateway_signing import (
    authority_of,
    content_digest,
    load_private_key,
    sign_parts,
    sign_request,
    signature_base,
    signature_params,
)

# RFC 9421 Appendix B.1.4, test-key-ed25519 (also the key of SIGNING.md's worked example).
B14_PRIVATE_PEM = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n"
B14_PUBLIC_RAW = base64.b64decode("JrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=")

# SIGNING.md section 4.
ACCESS_ID = "3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b"
BODY = b'{"amount":"150.00","currency":"BRL","pix_key":"+5511999990000"}'
WORKED_INPUT = 'sig1=("@method" "@authority" "@path" "@query" "x-access-id" "content-digest");created=1735689600;nonce="q4Jb2nK8sVx1ZpR7tW3yLg";alg="ed25519";keyid="3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b"'
WORKED_SIGNATURE = "sig1=:LtkTNFnyFzBeqWuCMoAnEQZbNwh/jH3Yi9PrEEqHlFEFgN8klmLRv22FxwW/SJsjlZw7KbDD3ONmnUtq8d2kBg==:"
WORKED_DIGEST = "sha-256=:lYoQlHR41qdLTSDxqapf+4zdlljH0+7iLnSZmA0IHWM=:"


def public_raw(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


class Rfc9421(unittest.TestCase):
    def test_b26_signature_base_and_signature(self) -> None:
        components = [
            ("date", "Tue, 20 Apr 2021 02:07:55 GMT"),
            ("@method", "POST"),
            ("@path", "/foo"),
            ("@authority", "example.com"),
            ("content-type", "application/json"),
            ("content-length", "18"),
        ]
        params = '("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"'
        base = signature_base(components, params)
        self.assertEqual(base.split("\n")[-1], f'"@signature-params": {params}')
        self.assertEqual(base.split("\n")[0], '"date": Tue, 20 Apr 2021 02:07:55 GMT')
        signature = base64.b64encode(load_private_key(B14_PRIVATE_PEM).sign(base.encode())).decode()
        self.assertEqual(signature, "wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==")

    def test_rfc9530_digests(self) -> None:
        body = b'{"hello": "world"}'
        self.assertEqual(content_digest(body), "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:")
        self.assertEqual(content_digest(body, "sha-512"), "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:")
        with self.assertRaises(ValueError):
            content_digest(body, "md5")

    def test_a_line_break_cannot_forge_the_next_line(self) -> None:
        with self.assertRaises(ValueError):
            signature_base([("x-a", "1\n\"@method\": GET")], "()")


class WorkedExample(unittest.TestCase):
    """SIGNING.md section 4, which the gateway's own test suite checks against its signer."""

    def test_headers(self) -> None:
        headers = sign_request(
            "post",
            "https://bank.example.com/v1/transfers?idempotency_key=tx-2024-0001",
            access_id=ACCESS_ID,
            private_key=B14_PRIVATE_PEM,
            headers={"Content-Type": "application/json"},
            body=BODY,
            created=1735689600,
            nonce="q4Jb2nK8sVx1ZpR7tW3yLg",
        )
        self.assertEqual(
            headers,
            {"x-access-id": ACCESS_ID, "content-digest": WORKED_DIGEST, "signature-input": WORKED_INPUT, "signature": WORKED_SIGNATURE},
        )

    def test_signature_base(self) -> None:
        names = ["@method", "@authority", "@path", "@query", "x-access-id", "content-digest"]
        params = signature_params(names, created=1735689600, nonce="q4Jb2nK8sVx1ZpR7tW3yLg", keyid=ACCESS_ID)
        self.assertEqual(f"sig1={params}", WORKED_INPUT)
        values = ["POST", "bank.example.com", "/v1/transfers", "?idempotency_key=tx-2024-0001", ACCESS_ID, WORKED_DIGEST]
        expected = "\n".join([f'"{n}": {v}' for n, v in zip(names, values)] + [f'"@signature-params": {params}'])
        self.assertEqual(signature_base(zip(names, values), params), expected)

    def test_sign_parts_is_the_same_request(self) -> None:
        headers = sign_parts(
            "POST",
            "Bank.Example.com",
            "/v1/transfers?idempotency_key=tx-2024-0001",
            access_id=ACCESS_ID,
            private_key=load_private_key(B14_PRIVATE_PEM),
            body=BODY,
            created=1735689600,
            nonce="q4Jb2nK8sVx1ZpR7tW3yLg",
        )
        self.assertEqual(headers["signature"], WORKED_SIGNATURE)


class Requests(unittest.TestCase):
    def test_no_body_no_digest_and_empty_query(self) -> None:
        headers = sign_request("GET", "http://127.0.0.1:8080/v1/balance", access_id="a", private_key=B14_PRIVATE_PEM, created=1, nonce="n")
        self.assertNotIn("content-digest", headers)
        self.assertEqual(headers["signature-input"], 'sig1=("@method" "@authority" "@path" "@query" "x-access-id");created=1;nonce="n";alg="ed25519";keyid="a"')

    def test_expires_and_covered_headers(self) -> None:
        headers = sign_request(
            "GET", "https://h/", access_id="a", private_key=B14_PRIVATE_PEM, headers={"X-Request-Id": " r1 "}, cover_headers=["X-Request-Id"], created=1, expires=2, nonce="n"
        )
        self.assertEqual(headers["signature-input"], 'sig1=("@method" "@authority" "@path" "@query" "x-access-id" "x-request-id");created=1;expires=2;nonce="n";alg="ed25519";keyid="a"')
        with self.assertRaises(ValueError):
            sign_request("GET", "https://h/", access_id="a", private_key=B14_PRIVATE_PEM, cover_headers=["x-absent"])

    def test_authority(self) -> None:
        self.assertEqual(authority_of("https://Bank.Example.com:443/x"), "bank.example.com")
        self.assertEqual(authority_of("http://bank.example.com:443/x"), "bank.example.com:443")
        self.assertEqual(authority_of("http://user:pw@127.0.0.1:8080"), "127.0.0.1:8080")
        self.assertEqual(authority_of("http://[::1]:80/"), "[::1]")
        with self.assertRaises(ValueError):
            authority_of("/v1/balance")

    def test_an_explicit_host_header_is_the_authority(self) -> None:
        a = sign_request("GET", "http://127.0.0.1:8080/v1/balance", access_id="a", private_key=B14_PRIVATE_PEM, headers={"Host": "Bank.Example.com"}, created=1, nonce="n")
        b = sign_request("GET", "https://bank.example.com/v1/balance", access_id="a", private_key=B14_PRIVATE_PEM, created=1, nonce="n")
        self.assertEqual(a, b)

    def test_access_id_must_be_printable_ascii(self) -> None:
        with self.assertRaises(ValueError):
            sign_request("GET", "https://h/", access_id="é", private_key=B14_PRIVATE_PEM)


class Keys(unittest.TestCase):
    def test_openssh_and_pkcs8_are_the_same_key(self) -> None:
        pkcs8 = load_private_key(B14_PRIVATE_PEM.encode())
        openssh = pkcs8.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption())
        self.assertTrue(openssh.startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----"))
        self.assertEqual(public_raw(load_private_key(openssh.decode())), B14_PUBLIC_RAW)
        self.assertEqual(public_raw(pkcs8), B14_PUBLIC_RAW)

    def test_other_key_types_are_refused(self) -> None:
        pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        with self.assertRaisesRegex(ValueError, "not Ed25519"):
            load_private_key(pem)


@unittest.skipUnless(importlib.util.find_spec("requests"), "requests is not installed")
class RequestsAuthClass(unittest.TestCase):
    def test_signs_the_prepared_request(self) -> None:
        import requests

        from access_gateway_signing import RequestsAuth

        prepared = requests.Request("post", "http://Bank.Example.com:80/v1/a b?x=1 2", data="é", auth=RequestsAuth(ACCESS_ID, B14_PRIVATE_PEM)).prepare()
        self.assertEqual(prepared.body, "é".encode())
        self.assertEqual(prepared.headers["Content-Length"], "2")
        self.assertEqual(prepared.headers["content-digest"], content_digest("é".encode()))
        self.assertIn(f'keyid="{ACCESS_ID}"', prepared.headers["signature-input"])
        verify(prepared.headers, "POST", "bank.example.com", "/v1/a%20b", "?x=1%202")


@unittest.skipUnless(importlib.util.find_spec("httpx"), "httpx is not installed")
class HttpxAuthClass(unittest.TestCase):
    def test_signs_the_request_as_sent(self) -> None:
        import httpx

        from access_gateway_signing import HttpxAuth

        request = httpx.Request("GET", "https://Bank.Example.com:8443/v1/a b")
        signed = next(HttpxAuth(ACCESS_ID, B14_PRIVATE_PEM).auth_flow(request))
        self.assertNotIn("content-digest", signed.headers)
        verify(signed.headers, "GET", "bank.example.com:8443", "/v1/a%20b", "?")


def verify(headers: object, method: str, authority: str, path: str, query: str) -> None:
    """Rebuilds the base from independently known values and checks the signature with the public key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    get = headers.get  # type: ignore[attr-defined]
    params = get("signature-input")[len("sig1=") :]
    values = {"@method": method, "@authority": authority, "@path": path, "@query": query, "x-access-id": get("x-access-id"), "content-digest": get("content-digest")}
    names = [name.strip('"') for name in params[1 : params.index(")")].split(" ")]
    base = signature_base([(name, values[name]) for name in names], params)
    signature = base64.b64decode(get("signature")[len("sig1=:") : -1])
    Ed25519PublicKey.from_public_bytes(B14_PUBLIC_RAW).verify(signature, base.encode())


if __name__ == "__main__":
    unittest.main()
