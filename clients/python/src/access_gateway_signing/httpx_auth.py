"""An httpx auth class that signs each request for the gateway (needs the optional ``httpx``)."""
from __future__ import annotations

from typing import AsyncGenerator, Generator, Iterable, Optional

import httpx

from .httpx_guard import install_guard
from .redirects import DEFAULT_MAX_REDIRECTS, REDIRECT_STATUSES, RedirectRefusedError, check_redirect_policy, redirect_target, redirected_headers, redirected_method
from .signing import SIGNING_HEADERS, PrivateKeyLike, _as_key, sign_parts


class HttpxAuth(httpx.Auth):
    """``httpx.Client(auth=HttpxAuth(access_id, key))``; works with httpx.AsyncClient too. Adds
    x-access-id, Content-Digest, Signature-Input and Signature.

    httpx has already encoded the URL and set the Host header when it runs an auth flow, so the
    signed @authority, @path and @query are exactly what goes on the wire.

    A redirect answer raises :class:`RedirectRefusedError` and nothing is sent to its Location. With
    ``follow_redirects="same-origin"`` (or ``"any-origin"``) this flow follows redirects itself, at
    most ``max_redirects``, each hop signed for its own URL; keep the client's own
    ``follow_redirects`` False (httpx's default): httpx would send the signed request to the Location
    as it is, so that is refused before it is written (see httpx_guard).
    """

    # Makes httpx read a streamed body before auth_flow, so it can be digested.
    requires_request_body = True

    def __init__(
        self,
        access_id: str,
        private_key: PrivateKeyLike,
        cover_headers: Iterable[str] = (),
        follow_redirects: Optional[str] = None,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
    ) -> None:
        check_redirect_policy(follow_redirects, max_redirects)
        self.access_id = access_id
        self.private_key = _as_key(private_key)  # parsed once, not per request
        self.cover_headers = tuple(cover_headers)
        self.follow_redirects = follow_redirects
        self.max_redirects = max_redirects

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        install_guard(request, asynchronous=False)
        return super().sync_auth_flow(request)

    def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        install_guard(request, asynchronous=True)
        return super().async_auth_flow(request)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        hops = 0
        while True:
            self._sign(request)
            response = yield request
            if response.status_code not in REDIRECT_STATUSES or "location" not in response.headers:
                return
            try:
                target = redirect_target(str(request.url), response.status_code, response.headers["location"], self.follow_redirects, self.max_redirects, hops)
            except RedirectRefusedError as error:
                error.response = response  # httpx closes it
                raise
            request = self._hop(request, response.status_code, target)
            hops += 1

    def _sign(self, request: httpx.Request) -> None:
        for name in SIGNING_HEADERS:
            request.headers.pop(name, None)
        request.headers.update(
            sign_parts(
                request.method,
                request.headers["Host"],
                request.url.raw_path.decode("ascii"),
                access_id=self.access_id,
                private_key=self.private_key,
                headers=dict(request.headers),
                body=request.content,
                cover_headers=self.cover_headers,
            )
        )

    @staticmethod
    def _hop(previous: httpx.Request, status_code: int, target: str) -> httpx.Request:
        method, keeps_body = redirected_method(previous.method, status_code)
        headers = redirected_headers(previous.headers.multi_items(), str(previous.url), target, keeps_body)
        # httpx sets Host (and Content-Length) for the new URL and body where they were dropped.
        return httpx.Request(method, target, headers=headers, content=previous.content if keeps_body else None, extensions=previous.extensions)
