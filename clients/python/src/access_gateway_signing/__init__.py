"""Sign banking API requests for the access gateway: RFC 9421 HTTP Message Signatures with Ed25519
and an RFC 9530 Content-Digest (the contract is SIGNING.md in the gateway's repository).

    from access_gateway_signing import RequestsAuth, load_private_key_file
    requests.get(url, auth=RequestsAuth(access_id, load_private_key_file("payroll.pem")))

RequestsAuth and HttpxAuth are imported on first use, so that requests and httpx stay optional.
A redirect answer raises RedirectRefusedError unless the auth object is given follow_redirects
("same-origin" or "any-origin"); then each hop is signed anew (SIGNING.md section 2, "Redirects").
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .redirects import (
    DEFAULT_MAX_REDIRECTS,
    REDIRECT_STATUSES,
    RedirectRefusedError,
    origin_of,
    redirect_target,
    redirected_headers,
    redirected_method,
)
from .signing import (
    ACCESS_ID_HEADER,
    REQUIRED_COMPONENTS,
    SIGNING_HEADERS,
    PrivateKeyLike,
    authority_of,
    content_digest,
    load_private_key,
    load_private_key_file,
    sign_parts,
    sign_request,
    signature_base,
    signature_params,
)

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ below imports them on first use
    from .httpx_auth import HttpxAuth
    from .requests_auth import RequestsAuth

__all__ = [
    "ACCESS_ID_HEADER",
    "DEFAULT_MAX_REDIRECTS",
    "REDIRECT_STATUSES",
    "REQUIRED_COMPONENTS",
    "SIGNING_HEADERS",
    "HttpxAuth",
    "PrivateKeyLike",
    "RedirectRefusedError",
    "RequestsAuth",
    "authority_of",
    "content_digest",
    "load_private_key",
    "load_private_key_file",
    "origin_of",
    "redirect_target",
    "redirected_headers",
    "redirected_method",
    "sign_parts",
    "sign_request",
    "signature_base",
    "signature_params",
]


def __getattr__(name: str) -> Any:
    # PEP 562: importing the package must not require requests or httpx.
    if name == "RequestsAuth":
        from .requests_auth import RequestsAuth

        return RequestsAuth
    if name == "HttpxAuth":
        from .httpx_auth import HttpxAuth

        return HttpxAuth
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
