"""Redirects of a signed request (SIGNING.md section 2, "Redirects").

A signature is made for one URL. Sending it again, with the Access ID and the body, to wherever a
``Location`` points would hand all of it to that host, and a nonce the gateway never saw could be
replayed to it within the window. So a redirect is refused (:class:`RedirectRefusedError`) unless
the caller opts in with ``follow_redirects``; then each hop is a new request, signed for its own URL
with a fresh nonce. The auth classes use these rules; so can any other client.
"""
from __future__ import annotations

from typing import Any, FrozenSet, Iterable, List, Optional, Tuple
from urllib.parse import urljoin, urlsplit

from .signing import _DEFAULT_PORTS, SIGNING_HEADERS

#: The values of ``follow_redirects``: within the request's origin, or anywhere. None follows none.
FOLLOW_REDIRECTS = ("same-origin", "any-origin")
#: The most hops followed unless ``max_redirects`` says otherwise.
DEFAULT_MAX_REDIRECTS = 5
#: The statuses that redirect (those requests, httpx and fetch follow).
REDIRECT_STATUSES: FrozenSet[int] = frozenset({301, 302, 303, 307, 308})

#: Header fields that describe a body, dropped with it.
_BODY_HEADERS = frozenset({"content-type", "content-length", "content-encoding", "content-language", "content-location", "transfer-encoding"})
#: Credentials of the first origin, never sent to another, and its Host.
_ORIGIN_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "host"})


class RedirectRefusedError(Exception):
    """A signed request was answered with a redirect that was not followed: nothing was sent to the
    ``Location``. ``reason`` is one of ``not_followed`` (``follow_redirects`` is not set),
    ``cross_origin`` (``"same-origin"`` and the Location is elsewhere), ``too_many_redirects``,
    ``invalid_location`` (not an http(s) URL) and ``client_follows`` (httpx's own
    ``follow_redirects=True`` was about to send it with the same signature). The message names the
    status and the origins only, never a header, the signature or the key. ``response`` is the
    redirect answer (closed), when there is one."""

    def __init__(self, reason: str, status_code: Optional[int], origin: Optional[str], location_origin: Optional[str], message: str, response: Any = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.status_code = status_code
        self.origin = origin
        self.location_origin = location_origin
        self.response = response


def check_redirect_policy(follow_redirects: Optional[str], max_redirects: int) -> None:
    """Refuses an unknown ``follow_redirects`` or a negative ``max_redirects`` when the auth object is made."""
    if follow_redirects is not None and follow_redirects not in FOLLOW_REDIRECTS:
        raise ValueError(f"follow_redirects must be 'same-origin' or 'any-origin' (or None, to follow none), got {follow_redirects!r}")
    if isinstance(max_redirects, bool) or not isinstance(max_redirects, int) or max_redirects < 0:
        raise ValueError(f"max_redirects must be an integer of 0 or more, got {max_redirects!r}")


def _valid_host(host: str) -> bool:
    """A name (letters, digits, ``.-_~``) or an IPv6 address; not what urlsplit passes through, such
    as ``%`` (it reads what follows as an IPv6 zone) or a space."""
    if ":" in host:
        return all(c in "0123456789abcdef:." for c in host)
    return all(c.isalnum() or c in ".-_~" for c in host)


def origin_of(url: str) -> Optional[str]:
    """``scheme://host[:port]`` as browsers write an origin (the default port left out); None when
    ``url`` is not an absolute http(s) URL."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host or not _valid_host(host):
        return None
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + ("" if port is None or port == _DEFAULT_PORTS[scheme] else f":{port}")


def redirect_target(from_url: str, status_code: int, location: str, follow_redirects: Optional[str], max_redirects: int, hops: int) -> str:
    """The absolute URL a redirect from ``from_url`` leads to, when ``follow_redirects`` lets this hop
    (``hops`` were already followed) be followed; raises :class:`RedirectRefusedError` otherwise."""
    origin = origin_of(from_url)
    answered = f"{origin} answered {status_code} with a redirect"
    try:
        target = urljoin(from_url, location)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        target = ""
    to = origin_of(target)
    if to is None:
        raise RedirectRefusedError("invalid_location", status_code, origin, None, f"{answered} whose Location is not an http(s) URL; a signed request is not sent there")
    if follow_redirects is None:
        raise RedirectRefusedError(
            "not_followed",
            status_code,
            origin,
            to,
            f"{answered} to {to}, not followed: a signed request is not sent again to another URL unless follow_redirects "
            "allows it ('same-origin' or 'any-origin'), and then each hop is signed anew",
        )
    if follow_redirects == "same-origin" and to != origin:
        raise RedirectRefusedError(
            "cross_origin", status_code, origin, to, f"{answered} to another origin, {to}, which follow_redirects='same-origin' does not follow ('any-origin' would sign the request for it)"
        )
    if hops >= max_redirects:
        raise RedirectRefusedError("too_many_redirects", status_code, origin, to, f"{answered} to {to} after {hops} redirects, the most max_redirects allows")
    return target


def redirected_method(method: str, status_code: int) -> Tuple[str, bool]:
    """The method of the next hop and whether it keeps the body, as HTTP and fetch say: 303 becomes a
    GET (HEAD stays HEAD) without a body, 301 and 302 turn a POST into a GET without a body, 307 and
    308 keep the method and the body."""
    method = method.upper()
    if (status_code == 303 and method != "HEAD") or (status_code in (301, 302) and method == "POST"):
        return "GET", False
    return method, True


def redirected_headers(headers: Iterable[Tuple[str, str]], from_url: str, target: str, keeps_body: bool) -> List[Tuple[str, str]]:
    """The request's header fields for the next hop: without the signing headers (signed anew), the
    body's when the body is dropped, and the first origin's credentials and Host when it changes."""
    dropped = set(SIGNING_HEADERS)
    if not keeps_body:
        dropped |= _BODY_HEADERS
    if origin_of(target) != origin_of(from_url):
        dropped |= _ORIGIN_HEADERS
    return [(name, value) for name, value in headers if name.lower() not in dropped]
