"""Driven by test/clients/python-sdk.test.ts, run with the python of a virtual environment that has
the access_gateway_signing package installed (never the source tree).

    python python_sdk_check.py compare CASES.json   # sign_request() headers for fixed inputs, as JSON
    python python_sdk_check.py send PLAN.json       # send every request with requests, httpx and httpx async
    python python_sdk_check.py redirects PLAN.json  # send each case to a redirecting server, report answer or refusal
    python python_sdk_check.py targets CASES.json   # redirect_target() for each Location, or its refusal

Prints one JSON document on stdout.
"""
from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Dict, List, Optional

import httpx
import requests

from access_gateway_signing import HttpxAuth, RedirectRefusedError, RequestsAuth, load_private_key_file, origin_of, redirect_target, sign_request

TIMEOUT_SECONDS = 10


def compare(cases: List[Dict[str, Any]]) -> List[Dict[str, str]]:
    return [
        sign_request(
            case["method"],
            case["url"],
            access_id=case["accessId"],
            private_key=load_private_key_file(case["keyFile"]),
            headers=case.get("headers"),
            body=case.get("body"),
            cover_headers=case.get("coverHeaders", ()),
            created=case["created"],
            nonce=case["nonce"],
            expires=case.get("expires"),
            digest_algorithm=case.get("digestAlgorithm", "sha-256"),
        )
        for case in cases
    ]


def outcome(client: str, key: str, request: Dict[str, Any], status: int, text: str) -> Dict[str, Any]:
    try:
        body: Any = json.loads(text)
    except ValueError:
        body = text
    return {"client": client, "key": key, "method": request["method"], "url": request["url"], "status": status, "body": body}


async def send_httpx_async(plan: Dict[str, Any], results: List[Dict[str, Any]]) -> None:
    for key in plan["keys"]:
        auth = HttpxAuth(key["accessId"], load_private_key_file(key["keyFile"]))
        async with httpx.AsyncClient(base_url=plan["gateway"], auth=auth, timeout=TIMEOUT_SECONDS, trust_env=False) as client:
            for request in plan["requests"]:
                response = await client.request(request["method"], request["url"], headers=request["headers"], content=request.get("body"))
                results.append(outcome("httpx-async", key["name"], request, response.status_code, response.text))


def send(plan: Dict[str, Any]) -> List[Dict[str, Any]]:
    results: List[Dict[str, Any]] = []
    for key in plan["keys"]:
        private_key = load_private_key_file(key["keyFile"])
        with requests.Session() as session:
            session.trust_env = False  # no proxy from the environment
            session.auth = RequestsAuth(key["accessId"], private_key)
            for request in plan["requests"]:
                response = session.request(request["method"], plan["gateway"] + request["url"], headers=request["headers"], data=request.get("body"), timeout=TIMEOUT_SECONDS)
                results.append(outcome("requests", key["name"], request, response.status_code, response.text))
        with httpx.Client(base_url=plan["gateway"], auth=HttpxAuth(key["accessId"], private_key), timeout=TIMEOUT_SECONDS, trust_env=False) as client:
            for request in plan["requests"]:
                response = client.request(request["method"], request["url"], headers=request["headers"], content=request.get("body"))
                results.append(outcome("httpx", key["name"], request, response.status_code, response.text))
    asyncio.run(send_httpx_async(plan, results))
    return results


def answered(response: Any) -> Dict[str, Any]:
    return {"status": response.status_code, "body": response.json(), "history": [r.status_code for r in response.history]}


def refused(error: RedirectRefusedError) -> Dict[str, Any]:
    return {
        "refused": {
            "reason": error.reason,
            "status_code": error.status_code,
            "origin": error.origin,
            "location_origin": error.location_origin,
            "message": str(error),
            "repr": repr(error),
            "response_status": None if error.response is None else error.response.status_code,
        }
    }


async def redirect_case_async(case: Dict[str, Any], access_id: str, key: Any) -> Dict[str, Any]:
    auth = HttpxAuth(access_id, key, follow_redirects=case["follow"])
    async with httpx.AsyncClient(auth=auth, timeout=TIMEOUT_SECONDS, trust_env=False, follow_redirects=case["clientFollows"]) as client:
        return answered(await client.request(case["method"], case["url"], content=case.get("body")))


def redirect_case(case: Dict[str, Any], access_id: str, key: Any) -> Dict[str, Any]:
    follow: Optional[str] = case["follow"]
    try:
        if case["client"] == "requests":
            with requests.Session() as session:
                session.trust_env = False
                auth = RequestsAuth(access_id, key, follow_redirects=follow)
                return answered(session.request(case["method"], case["url"], data=case.get("body"), auth=auth, timeout=TIMEOUT_SECONDS))
        if case["client"] == "httpx":
            with httpx.Client(auth=HttpxAuth(access_id, key, follow_redirects=follow), timeout=TIMEOUT_SECONDS, trust_env=False, follow_redirects=case["clientFollows"]) as client:
                return answered(client.request(case["method"], case["url"], content=case.get("body")))
        return asyncio.run(redirect_case_async(case, access_id, key))
    except RedirectRefusedError as error:
        return refused(error)
    except Exception as error:  # reported, so that one case does not hide the others
        return {"unexpected": f"{type(error).__name__}: {error}"}


def redirects(plan: Dict[str, Any]) -> List[Dict[str, Any]]:
    key = load_private_key_file(plan["keyFile"])
    return [{"name": case["name"], **redirect_case(case, plan["accessId"], key)} for case in plan["cases"]]


def target(case: Dict[str, Any]) -> Dict[str, Any]:
    try:
        url = redirect_target(case["from"], case["status"], case["location"], case["follow"], case["max"], case["hops"])
        return {"target": url, "origin": origin_of(url)}
    except RedirectRefusedError as error:
        return refused(error)
    except Exception as error:  # what the property test looks for
        return {"unexpected": f"{type(error).__name__}: {error}"}


def targets(cases: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [target(case) for case in cases]


def main() -> int:
    command, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as file:
        data = json.load(file)
    commands = {"compare": compare, "send": send, "redirects": redirects, "targets": targets}
    json.dump(commands[command](data), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
