"""The same calls and events through the web gateway: POST /v1/rpc and the event stream."""

import socket

import pytest

import scanbridge as sb


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.scanbridge(http=True)
def test_calls_and_events_through_the_gateway(scanbridge):
    client = sb.connect(scanbridge.gateway_url, token=scanbridge.token("admin"))
    assert isinstance(client, sb.GatewayClient) and client.hello()["role"] == "admin"
    before = scanbridge.inject("till-1", "SKU-0", symbology="code-128")
    subscription = client.subscribe(kinds=["barcode"])  # after the newest event

    injected = client.inject("mock:till-1", "5901234123457")

    event = subscription.next(timeout=20)
    assert isinstance(event, sb.ScanEvent) and (event.seq, event.id) == (injected.seq, injected.id)
    assert event.seq == before.seq + 1 and event.resolution.handler == "product-lookup"
    subscription.close()


@pytest.mark.scanbridge(http=True)
def test_device_events_and_typed_errors_through_the_gateway(scanbridge):
    client = sb.GatewayClient(scanbridge.gateway_url, scanbridge.token("admin"))
    subscription = client.subscribe(since=0)
    # Device events are live only: once a scan came through, the stream is surely live.
    scanbridge.inject("till-1", "SKU-1", symbology="code-128")
    while not isinstance(subscription.next(timeout=20), sb.ScanEvent):
        pass
    client.attach_mock("nfc", "door")

    while not (isinstance(event := subscription.next(timeout=20), sb.DeviceEvent) and event.device.id == "mock:door"):
        pass
    assert event.change == "added" and event.device.kind == "nfc"
    with pytest.raises(sb.RPCError) as raised:
        client.call("tokens.list")  # served on the socket only
    assert raised.value.code == sb.RPCError.FORBIDDEN
    subscription.close()


@pytest.mark.scanbridge(http=True)
def test_a_bad_token_and_a_reader_token(scanbridge):
    with pytest.raises(sb.GatewayError) as refused:
        sb.GatewayClient(scanbridge.gateway_url, "sbt_not-a-token").hello()
    reader = sb.GatewayClient(scanbridge.gateway_url, scanbridge.token("reader"))
    with pytest.raises(sb.RPCError) as forbidden:
        reader.inject("mock:till-1", "5901234123457")

    assert (refused.value.status, refused.value.code) == (401, "unauthorized")
    assert forbidden.value.code == sb.RPCError.FORBIDDEN


# A fixed port, so that the restarted daemon's gateway is where the client left it.
@pytest.mark.scanbridge(http=f"127.0.0.1:{free_port()}")
def test_the_event_stream_resumes_after_the_daemon_restarts(scanbridge):
    client = sb.GatewayClient(scanbridge.gateway_url, scanbridge.token("operator"))
    subscription = client.subscribe(since=0, kinds=["barcode"],
                                    backoff=sb.Backoff(initial=0.05, maximum=0.5, give_up_after=30))
    scanbridge.inject("till-1", "SKU-1", symbology="code-128")
    assert subscription.next(timeout=20).seq == 1

    scanbridge.restart(kill=True)
    for n in (2, 3):
        scanbridge.inject("till-1", f"SKU-{n}", symbology="code-128")

    assert [subscription.next(timeout=20).seq for _ in range(2)] == [2, 3]
    subscription.close()
