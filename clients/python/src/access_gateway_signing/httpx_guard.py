"""Stops httpx from sending a signature twice (needs the optional ``httpx``).

With ``follow_redirects=True``, httpx follows a redirect inside one step of the auth flow: it copies
the request, signed headers and body included (it drops only Authorization and Cookie), and sends
the copy to the Location before the auth flow sees the redirect. No auth hook runs before that
send, but the request's ``trace`` extension does: httpcore, the transport httpx uses, calls it as it
starts writing each request's headers, and the redirected copy keeps the extensions. So the flow
installs this guard there: a ``Signature`` value may start on the wire once; the second time the
guard raises RedirectRefusedError and nothing of that request is written.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import httpx

from .redirects import RedirectRefusedError, origin_of

_GUARD_MARK = "_access_gateway_signing_guard"
_HEADERS_STARTED = ".send_request_headers.started"
_RESPONSE_HEADERS = ".receive_response_headers.complete"


def _header(headers: Any, name: bytes) -> Optional[bytes]:
    for key, value in headers:
        if bytes(key).lower() == name:
            return bytes(value)
    return None


def _core_origin(url: Any) -> Optional[str]:
    """The origin an httpcore request goes to; a forward proxy's request carries it in its target."""
    target = bytes(url.target)
    if target.lower().startswith((b"http://", b"https://")):
        return origin_of(target.decode("ascii", "replace"))
    port = "" if url.port is None else f":{url.port}"
    return origin_of(f"{bytes(url.scheme).decode('ascii')}://{bytes(url.host).decode('ascii')}{port}")


def _status(returned: Any) -> Optional[int]:
    """The status in what httpcore's response-headers step returns (HTTP/1.1 and HTTP/2 shape it differently)."""
    if isinstance(returned, tuple):
        for item in returned:
            if isinstance(item, int):
                return item
    return None


class _Guard:
    def __init__(self) -> None:
        self.sent: Dict[bytes, Optional[str]] = {}  # Signature value -> the origin it went to
        self.status: Optional[int] = None

    def __call__(self, event: str, info: Dict[str, Any]) -> None:
        if event.endswith(_RESPONSE_HEADERS):
            self.status = _status(info.get("return_value"))
            return
        if not event.endswith(_HEADERS_STARTED) or "request" not in info:
            return
        request = info["request"]
        signature = _header(request.headers, b"signature")
        if signature is None:
            return  # a proxy's CONNECT, or a request this flow did not sign
        origin = _core_origin(request.url)
        if signature not in self.sent:
            self.sent[signature] = origin
            return
        first = self.sent[signature]
        answered = "answered" if self.status is None else f"answered {self.status}"
        raise RedirectRefusedError(
            "client_follows",
            self.status,
            first,
            origin,
            f"{first} {answered} with a redirect to {origin}, not followed: httpx's "
            "follow_redirects=True would send it with the same signature. Use the client's follow_redirects=False, and "
            "HttpxAuth(follow_redirects='same-origin' or 'any-origin') to follow redirects with each hop signed anew",
        )


def install_guard(request: httpx.Request, asynchronous: bool) -> None:
    """Puts the guard in the request's trace extension, before any trace the caller set."""
    previous: Optional[Callable[..., Any]] = request.extensions.get("trace")
    if getattr(previous, _GUARD_MARK, False):
        return
    guard = _Guard()

    async def async_trace(event: str, info: Dict[str, Any]) -> None:
        guard(event, info)
        if previous is not None:
            await previous(event, info)

    def sync_trace(event: str, info: Dict[str, Any]) -> None:
        guard(event, info)
        if previous is not None:
            previous(event, info)

    # httpcore awaits the trace of an async client and calls that of a sync one: each needs its kind.
    trace: Callable[..., Any] = async_trace if asynchronous else sync_trace
    setattr(trace, _GUARD_MARK, True)
    request.extensions = {**request.extensions, "trace": trace}
