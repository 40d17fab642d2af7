"""Driven by test/clients/python-sdk.test.ts, run with the python of a virtual environment that has
the access_gateway_signing package installed (never the source tree).

    python python_sdk_check.py compare CASES.json   # sign_request() headers for fixed inputs, as JSON
    python python_sdk_check.py send PLAN.json       # send every request with requests, httpx and httpx async

Prints one JSON document on stdout.
"""
from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Dict, List

import httpx
import requests

from access_gateway_signing import HttpxAuth, RequestsAuth, load_private_key_file, sign_request

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


def main() -> int:
    command, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as file:
        data = json.load(file)
    json.dump(compare(data) if command == "compare" else send(data), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
