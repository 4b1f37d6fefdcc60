"""The client's typed views and wrappers against contract/openrpc.json: a member the contract
adds or drops, or a method it renames, shows here rather than as a None in a program."""

import dataclasses
import inspect
import re

import pytest

import scanbridge as sb
from scanbridge import events, gateway, methods

from openrpc import METHODS, NOTIFICATIONS, properties


def wire_names(cls: type) -> set[str]:
    return {item.metadata.get("wire") or events._snake_to_camel(item.name)
            for item in dataclasses.fields(cls) if item.name != "extra"}


@pytest.mark.parametrize("cls, schema", [(sb.Device, "Device"), (sb.Product, "Product"), (sb.ScanEvent, "ScanEvent")])
def test_a_typed_view_names_exactly_the_members_of_its_schema(cls, schema):
    typed, contract = wire_names(cls), set(properties(schema))
    assert typed - contract == set(), "typed, not in the contract"
    assert contract - typed == set(), "in the contract, not typed"


def test_a_resolution_types_members_the_contract_gives_resolutions():
    # The handlers' own members (`card`, `order`…) are reached through `get`, so only a subset is typed.
    assert wire_names(sb.Resolution) <= set(properties("Resolution"))


def test_the_typed_wrappers_call_methods_of_the_contract():
    called = set(re.findall(r'self\.call\("([^"]+)"', inspect.getsource(methods)))
    assert called and called - set(METHODS) == set()


def test_every_notification_of_the_contract_is_typed():
    params = {"subscription": "s1", "event": {}, "device": {}, "from": 1, "to": 2, "dropped": 3}
    untyped = [name for name in NOTIFICATIONS if events.notice(name, params) is None]
    assert untyped == []


def test_the_event_stream_carries_the_notifications_of_the_contract():
    assert {method for method, _ in gateway._STREAM_EVENTS.values()} == set(NOTIFICATIONS)
