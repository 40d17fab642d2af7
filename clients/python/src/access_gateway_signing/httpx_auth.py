"""An httpx auth class that signs each request for the gateway (needs the optional ``httpx``)."""
from __future__ import annotations

from typing import Generator, Iterable

import httpx

from .signing import PrivateKeyLike, _as_key, sign_parts


class HttpxAuth(httpx.Auth):
    """``httpx.Client(auth=HttpxAuth(access_id, key))``; works with httpx.AsyncClient too. Adds
    x-access-id, Content-Digest, Signature-Input and Signature.

    httpx has already encoded the URL and set the Host header when it runs an auth flow, so the
    signed @authority, @path and @query are exactly what goes on the wire.
    """

    # Makes httpx read a streamed body before auth_flow, so it can be digested.
    requires_request_body = True

    def __init__(self, access_id: str, private_key: PrivateKeyLike, cover_headers: Iterable[str] = ()) -> None:
        self.access_id = access_id
        self.private_key = _as_key(private_key)  # parsed once, not per request
        self.cover_headers = tuple(cover_headers)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
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
        yield request
