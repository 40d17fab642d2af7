"""A requests auth class that signs each request for the gateway (needs the optional ``requests``)."""
from __future__ import annotations

from typing import Any, Iterable, List, Optional

import requests
from requests.structures import CaseInsensitiveDict
from requests.utils import requote_uri

from .redirects import DEFAULT_MAX_REDIRECTS, RedirectRefusedError, check_redirect_policy, redirect_target, redirected_headers, redirected_method
from .signing import SIGNING_HEADERS, PrivateKeyLike, _as_key, authority_of, sign_parts


class RequestsAuth(requests.auth.AuthBase):
    """``requests.get(url, auth=RequestsAuth(access_id, key))``: adds x-access-id, Content-Digest,
    Signature-Input and Signature.

    requests calls an auth object after it has prepared the URL and the body, so this signs the
    percent-encoding and the bytes that are actually sent.

    A redirect answer raises :class:`RedirectRefusedError` and nothing is sent to its Location:
    requests' own redirect handling would send the signed headers and the body there as they are (it
    applies no auth object again). With ``follow_redirects="same-origin"`` (or ``"any-origin"``) this
    class follows redirects itself, at most ``max_redirects``, each hop signed for its own URL.
    """

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

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        self._sign(request)
        # Response hooks run before requests' redirect handling, which then never sees a redirect.
        if self._on_response not in request.hooks["response"]:
            request.register_hook("response", self._on_response)
        return request

    def _sign(self, request: requests.PreparedRequest) -> None:
        body = _body_bytes(request.body)
        if isinstance(request.body, str):
            # requests would leave the encoding of a str body to http.client (Latin-1); send and sign UTF-8.
            request.body = body
            request.prepare_content_length(body)
        url = request.url or ""
        # urllib3 sends Host from the URL (lower case, default port left out) unless one is set.
        authority = request.headers.get("Host") or authority_of(url)
        for name in SIGNING_HEADERS:
            request.headers.pop(name, None)
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

    def _on_response(self, response: requests.Response, **send_kwargs: Any) -> requests.Response:
        """Refuses a redirect, or follows it with each hop signed anew, sent by the adapter the way
        requests' own HTTPDigestAuth re-sends a request; the hops become the response's history."""
        history: List[requests.Response] = []
        while response.is_redirect:
            # As requests reads it: the header's bytes are UTF-8 more often than Latin-1.
            location = requote_uri(response.headers["location"].encode("latin1").decode("utf8", "replace"))
            try:
                target = redirect_target(response.url, response.status_code, location, self.follow_redirects, self.max_redirects, len(history))
            except RedirectRefusedError as error:
                response.close()
                error.response = response
                raise
            hop = self._hop(response.request, response.status_code, target)
            response.close()
            history.append(response)
            response = response.connection.send(hop, **send_kwargs)
        if history:
            response.history = history
        return response

    def _hop(self, previous: requests.PreparedRequest, status_code: int, target: str) -> requests.PreparedRequest:
        hop = previous.copy()
        hop.method, keeps_body = redirected_method(previous.method or "GET", status_code)
        hop.url = target
        hop.headers = CaseInsensitiveDict(redirected_headers(previous.headers.items(), previous.url or "", target, keeps_body))
        if not keeps_body:
            hop.body = None
        self._sign(hop)
        return hop


def _body_bytes(body: object) -> Optional[bytes]:
    """The body as bytes; a streamed body (file, generator) cannot be digested before it is sent."""
    if body is None or isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    raise TypeError("RequestsAuth signs bodies given as bytes or str; read a file or stream into bytes first")
