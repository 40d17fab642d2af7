"""A requests auth class that signs each request for the gateway (needs the optional ``requests``)."""
from __future__ import annotations

from typing import Iterable, Optional

import requests

from .signing import PrivateKeyLike, _as_key, authority_of, sign_parts


class RequestsAuth(requests.auth.AuthBase):
    """``requests.get(url, auth=RequestsAuth(access_id, key))``: adds x-access-id, Content-Digest,
    Signature-Input and Signature.

    requests calls an auth object after it has prepared the URL and the body, so this signs the
    percent-encoding and the bytes that are actually sent.
    """

    def __init__(self, access_id: str, private_key: PrivateKeyLike, cover_headers: Iterable[str] = ()) -> None:
        self.access_id = access_id
        self.private_key = _as_key(private_key)  # parsed once, not per request
        self.cover_headers = tuple(cover_headers)

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        body = _body_bytes(request.body)
        if isinstance(request.body, str):
            # requests would leave the encoding of a str body to http.client (Latin-1); send and sign UTF-8.
            request.body = body
            request.prepare_content_length(body)
        url = request.url or ""
        # urllib3 sends Host from the URL (lower case, default port left out) unless one is set.
        authority = request.headers.get("Host") or authority_of(url)
        request.headers.update(
            sign_parts(
                request.method or "GET",
                authority,
                request.path_url,
                access_id=self.access_id,
                private_key=self.private_key,
                headers=dict(request.headers),
                body=body,
                cover_headers=self.cover_headers,
            )
        )
        return request


def _body_bytes(body: object) -> Optional[bytes]:
    """The body as bytes; a streamed body (file, generator) cannot be digested before it is sent."""
    if body is None or isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    raise TypeError("RequestsAuth signs bodies given as bytes or str; read a file or stream into bytes first")
