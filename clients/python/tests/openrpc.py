"""contract/openrpc.json for the tests: its methods and messages, and validators of their schemas.

jsonschema is a test dependency (Debian's python3-jsonschema); the client never imports it.
"""

import json
from pathlib import Path
from typing import Any

import jsonschema

PATH = Path(__file__).resolve().parents[3] / "contract" / "openrpc.json"
DOCUMENT = json.loads(PATH.read_text(encoding="utf-8"))
METHODS = {method["name"]: method for method in DOCUMENT["methods"]}
NOTIFICATIONS = {message["name"]: message for message in DOCUMENT["x-notifications"]}
DAEMON_REQUESTS = {message["name"]: message for message in DOCUMENT["x-daemon-requests"]}
SCHEMAS = DOCUMENT["components"]["schemas"]


def _code(error: dict[str, Any]) -> int:
    if "$ref" in error:
        return DOCUMENT["components"]["errors"][error["$ref"].rsplit("/", 1)[1]]["code"]
    return error["code"]


COMMON_ERRORS = {_code(error) for error in DOCUMENT["x-errors-of-every-call"]}


def validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator of `schema`, whose `#/components/…` references resolve in the document.

    The schema is laid over the document's own members, none of which is a JSON Schema keyword,
    so the document is the root its references start from: this works alike with the older
    jsonschema Debian ships and newer ones, whose reference resolution differs.
    """
    return jsonschema.Draft202012Validator({**DOCUMENT, **schema})


def params_schema(message: dict[str, Any]) -> dict[str, Any]:
    """By-name params of a method or message as one object schema, closed as the contract is."""
    return {
        "type": "object",
        "properties": {param["name"]: param["schema"] for param in message["params"]},
        "required": [param["name"] for param in message["params"] if param.get("required")],
        "additionalProperties": False,
    }


def check(schema: dict[str, Any], instance: Any, what: str) -> None:
    """AssertionError naming `what` and every way `instance` breaks `schema`."""
    errors = sorted(validator(schema).iter_errors(instance), key=lambda error: list(error.absolute_path))
    if errors:
        lines = [f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message[:300]}"
                 for error in errors[:8]]
        raise AssertionError(f"{what} breaks contract/openrpc.json:\n  " + "\n  ".join(lines))


def check_response(method: str, response: dict[str, Any]) -> bool:
    """Checks a response against the method's result schema, or its error code against the
    method's errors; True for a result."""
    if "error" in response:
        code = response["error"]["code"]
        allowed = {_code(error) for error in METHODS[method]["errors"]} | COMMON_ERRORS
        assert code in allowed, f"{method} answered {code}, not among its errors {sorted(allowed)}: {response['error']}"
        return False
    check(METHODS[method]["result"]["schema"], response["result"], f"{method}'s result")
    return True


def check_notification(message: dict[str, Any]) -> None:
    check(params_schema(NOTIFICATIONS[message["method"]]), message["params"], f"a {message['method']} notification")


def properties(name: str) -> dict[str, bool]:
    """The members of schema `name`, each with whether every variant requires it (through
    allOf, anyOf and references), for comparing a typed client's shapes with the contract."""
    return _members(SCHEMAS[name])


def _members(schema: dict[str, Any]) -> dict[str, bool]:
    if "$ref" in schema:
        return _members(SCHEMAS[schema["$ref"].rsplit("/", 1)[1]])
    members = {key: key in schema.get("required", []) for key in schema.get("properties", {})}
    for part in schema.get("allOf", []):
        for key, required in _members(part).items():
            members[key] = members.get(key, False) or required
    if "anyOf" in schema:
        variants = [_members(part) for part in schema["anyOf"]]
        for key in set().union(*variants):
            members[key] = members.get(key, False) or all(variant.get(key, False) for variant in variants)
    return members
