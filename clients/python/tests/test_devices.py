"""Plugging and unplugging mock devices, seen as typed device events."""

import scanbridge as sb


def next_device_event(scanbridge, device_id):
    while True:
        event = scanbridge.next_event()
        if isinstance(event, sb.DeviceEvent) and event.device.id == device_id:
            return event


def test_plug_unplug_and_plug_back(scanbridge):
    plugged = scanbridge.plug("barcode", "till-2", name="Till 2 scanner")
    assert isinstance(plugged, sb.Device)
    assert (plugged.id, plugged.driver, plugged.kind, plugged.state) == ("mock:till-2", "mock", "barcode", "ready")
    added = next_device_event(scanbridge, "mock:till-2")
    assert (added.change, added.device.name) == ("added", "Till 2 scanner")

    scanbridge.unplug("till-2")
    removed = next_device_event(scanbridge, "mock:till-2")
    assert (removed.change, removed.device.state) == ("removed", "gone")
    assert {device.id: device.state for device in scanbridge.client.devices()}["mock:till-2"] == "gone"

    scanbridge.plug("barcode", "till-2")
    assert next_device_event(scanbridge, "mock:till-2").change == "added"
    assert scanbridge.inject("till-2", "5901234123457").device == "mock:till-2"


def test_one_mock_of_each_kind_by_default(scanbridge):
    assert {device.id for device in scanbridge.client.devices()} >= {
        "mock:till-1", "mock:counter-reader", "mock:bench-camera"}


def test_typed_objects_keep_members_they_do_not_know():
    device = sb.Device.from_json({"id": "mock:x", "kind": "qr", "state": "ready", "firmware": "2.1"})
    event = sb.ScanEvent.from_json({"seq": 7, "text": "A", "uidDisplay": "04:A1", "weight": {"kg": 1},
                                    "resolution": {"handler": "loyalty", "status": "found", "member": {"points": 3}}})

    assert device.extra == {"firmware": "2.1"} and device.state == "ready"
    assert event.extra == {"weight": {"kg": 1}} and event.uid_display == "04:A1"
    assert event.resolution.get("member") == {"points": 3} and event.product is None
