"""The redirect rules of a signed request (SIGNING.md section 2, "Redirects"), on examples. Standard
library only; requests and httpx against real redirecting servers are in the gateway repository's
test/clients/python-sdk.test.ts.
"""
from __future__ import annotations

import unittest

from access_gateway_signing import RedirectRefusedError, origin_of, redirect_target, redirected_headers, redirected_method
from access_gateway_signing.redirects import check_redirect_policy

FROM = "http://127.0.0.1:8080/v1/transfers?key=secret-token"


class RedirectTarget(unittest.TestCase):
    def refusal(self, location: str, follow: object, hops: int = 0, max_redirects: int = 5) -> RedirectRefusedError:
        with self.assertRaises(RedirectRefusedError) as caught:
            redirect_target(FROM, 307, location, follow, max_redirects, hops)  # type: ignore[arg-type]
        return caught.exception

    def test_refused_by_default_naming_status_and_origins_only(self) -> None:
        error = self.refusal("http://127.0.0.1:9090/landing?token=other-secret", None)
        self.assertEqual((error.reason, error.status_code, error.origin, error.location_origin), ("not_followed", 307, "http://127.0.0.1:8080", "http://127.0.0.1:9090"))
        self.assertTrue(str(error).startswith("http://127.0.0.1:8080 answered 307 with a redirect to http://127.0.0.1:9090, not followed"))
        self.assertNotIn("secret", str(error))

    def test_same_origin(self) -> None:
        self.assertEqual(redirect_target(FROM, 308, "/v1/other?x=1", "same-origin", 5, 0), "http://127.0.0.1:8080/v1/other?x=1")
        self.assertEqual(self.refusal("//127.0.0.1:9090/x", "same-origin").reason, "cross_origin")
        self.assertEqual(self.refusal("https://127.0.0.1:8080/x", "same-origin").location_origin, "https://127.0.0.1:8080")

    def test_any_origin_bounded(self) -> None:
        self.assertEqual(redirect_target(FROM, 303, "https://Bank.Example:443/x", "any-origin", 5, 4), "https://Bank.Example:443/x")
        error = self.refusal("/x", "any-origin", hops=5)
        self.assertEqual(error.reason, "too_many_redirects")
        self.assertIn("after 5 redirects", str(error))

    def test_invalid_locations(self) -> None:
        for location in ["javascript:alert(1)", "ftp://127.0.0.1/x", "http://[::1/x", "http://%41/x", "http://a b/x"]:
            error = self.refusal(location, "any-origin")
            self.assertEqual((error.reason, error.location_origin), ("invalid_location", None), location)


class RedirectedRequest(unittest.TestCase):
    def test_methods(self) -> None:
        self.assertEqual(redirected_method("POST", 303), ("GET", False))
        self.assertEqual(redirected_method("HEAD", 303), ("HEAD", True))
        self.assertEqual(redirected_method("post", 302), ("GET", False))
        self.assertEqual(redirected_method("PUT", 301), ("PUT", True))
        self.assertEqual(redirected_method("POST", 307), ("POST", True))
        self.assertEqual(redirected_method("DELETE", 308), ("DELETE", True))

    def test_headers(self) -> None:
        headers = [("Content-Type", "application/json"), ("Content-Length", "2"), ("Authorization", "Bearer x"), ("Cookie", "a=b"), ("Host", "127.0.0.1:8080"), ("Accept", "*/*"), ("X-Access-Id", "id"), ("Signature", "sig1=:AA==:"), ("Content-Digest", "sha-256=:AA==:")]
        self.assertEqual(redirected_headers(headers, FROM, "http://127.0.0.1:8080/x", True), headers[:6])
        self.assertEqual(redirected_headers(headers, FROM, "http://127.0.0.1:8080/x", False), headers[2:6])
        self.assertEqual(redirected_headers(headers, FROM, "http://127.0.0.1:9090/x", True), [headers[0], headers[1], headers[5]])

    def test_origins(self) -> None:
        self.assertEqual(origin_of("HTTPS://Bank.Example:443/x"), "https://bank.example")
        self.assertEqual(origin_of("http://[::1]:80/"), "http://[::1]")
        self.assertIsNone(origin_of("mailto:a@b"))

    def test_policy(self) -> None:
        for follow, max_redirects in [(True, 5), ("always", 5), (None, -1), (None, True), ("same-origin", 2.5)]:
            with self.assertRaises(ValueError):
                check_redirect_policy(follow, max_redirects)  # type: ignore[arg-type]
        check_redirect_policy("any-origin", 0)


if __name__ == "__main__":
    unittest.main()
