"""The daemon's real answers against contract/openrpc.json: every method a test can call, at the
role that may call it, every kind of resolution, and the notifications, checked against the
schemas. A member the contract does not name, or one it requires and the daemon left out,
fails here before a typed client meets it."""

import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

import scanbridge as sb
from scanbridge.harness import Harness, find_executable

from openrpc import DAEMON_REQUESTS, METHODS, check, check_notification, check_response, params_schema
from rawrpc import RawConnection

DEMO = Path(__file__).resolve().parents[3] / "demo"
# Roles come from the caller's groups (docs/protocol.md, Roles): nogroup may connect and read,
# users operate. The socket's folder lets them through to it.
CONFIG = "socket_group: nogroup\nroles:\n  reader_groups: [nogroup]\n  operator_groups: [users]\n"
NOBODY = 65534
USERS = 100
CARD, OTHER_CARD, UNKNOWN_CARD = "04A1B2C3D4E5F6", "04A1B2C3D4E5F7", "04DEADBEEF0102"
SECURE_CARD = "045EC012345678"

# Methods whose success a test daemon (mock drivers, no USB, no shared store) cannot give: their
# documented refusal is checked instead.
REFUSED_HERE = {"devices.reset", "store.migrate"}


@pytest.fixture
def daemon():
    """A daemon whose socket nobody's groups can reach, with the demo catalog and orders."""
    executable = find_executable("SCANBRIDGE_DAEMON", "scanbridged")
    if executable is None:
        pytest.skip("no scanbridged: set SCANBRIDGE_DAEMON or put it on PATH")
    folder = Path(tempfile.mkdtemp(prefix="sb-contract-"))
    folder.chmod(0o711)
    harness = Harness(executable, folder, http=True, config=CONFIG, cli=find_executable("SCANBRIDGE_CLI", "scanbridge"))
    try:
        harness.import_products(DEMO / "catalog.csv")
        harness.call("orders.upsert", {"orders": json.loads((DEMO / "orders.json").read_text())})
        yield harness
    finally:
        harness.close()
        shutil.rmtree(folder, ignore_errors=True)


class Checked:
    """Calls on one raw connection, each answer checked; remembers which methods gave a result."""

    def __init__(self, connection: RawConnection, results: set[str]):
        self.connection = connection
        self.results = results

    def __call__(self, method: str, params: dict | None = None) -> dict:
        response = self.connection.call(method, params)
        if check_response(method, response):
            self.results.add(method)
        return response

    def result(self, method: str, params: dict | None = None) -> dict:
        response = self(method, params)
        assert "result" in response, f"{method} failed: {response.get('error')}"
        return response["result"]


def as_nobody(daemon: Harness, calls: list, groups: list[int], scans: int = 0) -> dict:
    """Makes `calls` on a connection of a process of user nobody in `groups`."""
    done = subprocess.run(
        ["/usr/bin/python3", "-I", str(Path(__file__).with_name("rawrpc.py")), daemon.socket_path, str(scans)],
        input=json.dumps(calls), capture_output=True, text=True, timeout=60, user=NOBODY, group=NOBODY,
        extra_groups=groups)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def inject_every_resolution(call: Checked) -> list[dict]:
    """One scan of each kind of resolution the built-in handlers give, and one unhandled."""
    call.result("cards.link", {"uid": CARD, "walletAddress": "rAda", "cardName": "Ada's card"})
    call.result("cards.link", {"uid": OTHER_CARD, "walletAddress": "rGrace"})
    call.result("customers.upsert", {"customer": {"walletAddress": "rAda", "name": "Ada", "email": "ada@example.com"}})
    barcodes = [
        ("5901234123457", None),  # found
        ("0012345678905", None),  # not_found: a right GTIN the catalog lacks
        ("5901234123450", None),  # invalid: a wrong check digit
        ("2011122912346", None),  # found, with the price printed in the label (embedded)
        ("0109506000134352", "gs1-128"),  # GS1 content
        ("RM-1001", "code-128"),  # an order by its reference
        ("RM-9999", "code-128"),  # an order not found
    ]
    events = [call.result("scan.inject", {"device": "mock:till-1", "text": text, **({"symbology": s} if s else {})})
              ["event"] for text, s in barcodes]
    for text in ("DEVICE:dev_55", "ORDER:", "just some words"):  # a device's order, invalid, unhandled
        events.append(call.result("scan.inject", {"device": "mock:bench-camera", "text": text})["event"])
    events.append(call.result("scan.inject", {"device": "mock:counter-reader", "uid": CARD})["event"])  # identified
    events.append(call.result("scan.inject", {"device": "mock:counter-reader", "uid": UNKNOWN_CARD})["event"])
    call.result("cards.arm", {"walletAddress": "rAda", "device": "mock:counter-reader"})
    linked = call.result("scan.inject", {"device": "mock:counter-reader", "uid": "04:11:22:33"})["event"]
    events.append(linked)
    call.result("cards.arm", {"walletAddress": "rAda", "device": "mock:counter-reader"})
    events.append(call.result("scan.inject", {"device": "mock:counter-reader", "uid": OTHER_CARD})["event"])  # conflict
    call.result("cards.setStatus", {"uid": OTHER_CARD, "status": "blocked"})
    events.append(call.result("scan.inject", {"device": "mock:counter-reader", "uid": OTHER_CARD})["event"])
    call.result("cards.setStatus", {"uid": OTHER_CARD, "status": "inactive"})
    events.append(call.result("scan.inject", {"device": "mock:counter-reader", "uid": OTHER_CARD})["event"])
    # A secure card read by its UID alone, as a copy of it would be: unverified, no-message.
    call.result("cards.link", {"uid": SECURE_CARD, "walletAddress": "rGrace", "security": "secure"})
    events.append(call.result("scan.inject", {"device": "mock:counter-reader", "uid": SECURE_CARD})["event"])
    return events


def test_every_answer_and_message_fits_the_contract(daemon):
    if os.geteuid() != 0:
        pytest.skip("the reader and operator connections are a process of user nobody, which only root may start")
    results: set[str] = set()
    admin = RawConnection(daemon.socket_path)
    call = Checked(admin, results)
    call.result("events.subscribe", {"since": 0})
    call.result("mock.attach", {"kind": "nfc", "id": "door"})
    call.result("mock.detach", {"id": "mock:door"})
    call.result("mock.attach", {"kind": "nfc", "id": "door"})  # plugged back in: device.added again

    events = inject_every_resolution(call)
    statuses = {(event["resolution"]["handler"], event["resolution"]["status"]) for event in events}
    assert statuses >= {
        ("product-lookup", "found"), ("product-lookup", "not_found"), ("product-lookup", "invalid"),
        ("order-lookup", "found"), ("order-lookup", "not_found"), ("order-lookup", "invalid"), (None, "unhandled"),
        ("card-link", "identified"), ("card-link", "unknown"), ("card-link", "linked"), ("card-link", "conflict"),
        ("card-link", "blocked"), ("card-link", "inactive"), ("card-link", "unverified"),
    }, statuses
    assert any("embedded" in event["resolution"] for event in events) and any("gs1" in event for event in events)

    plugin_resolution(daemon, call)
    admin_calls(call)

    reader = as_nobody(daemon, reader_calls(), [], scans=len(events))
    operator = as_nobody(daemon, operator_calls(), [USERS])
    for calls, answers in ((reader_calls(), reader), (operator_calls(), operator)):
        for (method, _), response in zip(calls, answers["responses"]):
            if check_response(method, response):
                results.add(method)
        for message in answers["notifications"]:
            check_notification(message)
    roles = [answers["responses"][0]["result"]["role"] for answers in (reader, operator)]
    assert roles == ["reader", "operator"]
    scans = [message["params"]["event"] for message in reader["notifications"] if message["method"] == "scan"]
    masked = [event for event in scans if event["kind"] == "nfc"]
    assert masked and all("••" in event["uid"] for event in masked), "a reader sees NFC events masked"
    assert [r["error"]["code"] for r in operator["responses"] if "error" in r][-1] == -32003

    ticket(daemon, results)

    admin.wait_for(len(events) + 1)
    for message in admin.notifications:
        check_notification(message)
    seen = {message["method"] for message in admin.notifications}
    assert {"scan", "device.added", "device.removed"} <= seen, seen
    admin.close()
    assert set(METHODS) - REFUSED_HERE - results == set(), "methods never answered with a result"


def plugin_resolution(daemon: Harness, call: Checked) -> None:
    """An out-of-process handler: the daemon's request and the resolution made of its answer."""
    handler = RawConnection(daemon.socket_path)
    Checked(handler, call.results).result(
        "handlers.register", {"name": "loyalty", "match": {"pattern": "^LOYALTY-"}, "priority": 5})
    injected = {}
    thread = threading.Thread(target=lambda: injected.update(
        call.result("scan.inject", {"device": "mock:till-1", "text": "LOYALTY-0042", "symbology": "code-128"})))
    thread.start()
    request = handler.read()
    check(params_schema(DAEMON_REQUESTS["handler.resolve"]), request["params"], "handler.resolve's params")
    answer = {"status": "found", "member": {"name": "Ada", "points": 1200}}
    check(DAEMON_REQUESTS["handler.resolve"]["result"]["schema"], answer, "handler.resolve's answer")
    handler.send({"id": request["id"], "result": answer})
    thread.join(30)
    assert injected["event"]["resolution"] == {"handler": "loyalty", **answer}
    handler.close()


def admin_calls(call: Checked) -> None:
    call.result("bridge.hello", {"client": {"name": "contract-test", "version": "1"}})
    call.result("devices.list")
    call.result("devices.candidates")
    call.result("devices.claim", {"id": "0c2e:0b81"})  # a USB product: nothing of it is attached here
    call.result("devices.release", {"id": "0c2e:0b81"})
    call("devices.reset", {"id": "mock:till-1"})
    call("store.migrate")
    call.result("events.recent", {"limit": 1000})
    call.result("products.upsert", {"product": {"id": "tea", "name": "Tea", "price": "2.00", "storeId": "elsewhere"}})
    call.result("products.list", {"limit": 2})
    call.result("products.delete", {"id": "tea"})
    call.result("products.stage", {"products": [{"id": "tea", "name": "Tea", "price": 2, "parentId": "prod_1",
                                                 "variant": "large"}]})
    call.result("products.commit", {})
    call.result("products.lookup", {"code": "SKU001"})
    call.result("orders.upsert", {"order": {"id": "ord_2000", "reference": "RM-2000", "devices": [{"id": "dev_99"}]}})
    call.result("orders.lookup", {"code": "DEVICE:dev_99"})
    call.result("cards.unlink", {"uid": "04:11:22:33"})
    call.result("customers.erase", {"walletAddress": "rNobody"})
    created = call.result(
        "tokens.create", {"name": "contract", "role": "reader", "origins": ["https://pos.example.com"]})
    call.result("tokens.list")
    call.result("tokens.revoke", {"id": created["token"]["id"]})
    armed = call.result("cards.arm", {"walletAddress": "rAda", "device": "mock:counter-reader"})["armed"]
    call.result("cards.disarm", {"armed": armed})
    subscription = call.result("events.subscribe", {"kinds": ["qr"]})["subscription"]
    call.result("events.unsubscribe", {"subscription": subscription})


def reader_calls() -> list:
    return [
        ["bridge.hello", {}], ["devices.list", {}], ["events.recent", {"limit": 100}],
        ["events.subscribe", {"since": 0}],
        ["products.lookup", {"code": "5901234123457"}], ["products.lookup", {"code": "2011122912346"}],
        ["products.lookup", {"code": "nothing here"}], ["orders.lookup", {"code": "RM-1001"}],
        ["orders.lookup", {"code": "ORDER:nope"}], ["products.list", {}], ["cards.get", {"uid": CARD}],
        ["events.ticket", {}], ["events.unsubscribe", {"subscription": "s9"}], ["cards.list", {}],
    ]


def operator_calls() -> list:
    return [
        ["bridge.hello", {}], ["cards.list", {"walletAddress": "rAda"}], ["customers.get", {"walletAddress": "rAda"}],
        ["customers.upsert", {"customer": {"walletAddress": "rAda", "phone": "+44 20 7946 0000",
                                           "milestones": {"firstPaymentAt": "2026-11-21T10:00:00Z"}}}],
        ["cards.arm", {"walletAddress": "rAda", "device": "mock:counter-reader", "timeoutMs": 1000}],
        ["cards.disarm", {"armed": "never-armed"}], ["cards.setStatus", {"uid": CARD, "status": "active"}],
        ["devices.reset", {"id": "mock:till-1"}], ["products.upsert", {"product": {"name": "Tea", "price": "2"}}],
    ]


def ticket(daemon: Harness, results: set[str]) -> None:
    """`events.ticket` answers only a gateway token: its result is checked over HTTP."""
    client = sb.GatewayClient(daemon.gateway_url, daemon.token("reader"))
    if check_response("events.ticket", {"result": client.call("events.ticket")}):
        results.add("events.ticket")
