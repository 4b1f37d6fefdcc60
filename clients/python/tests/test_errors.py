"""Errors: the daemon's JSON-RPC errors come typed, and an oversized line is refused."""

import pytest

import scanbridge as sb


def test_an_unknown_method(scanbridge):
    with pytest.raises(sb.RPCError) as raised:
        scanbridge.call("till.open")

    assert raised.value.code == sb.RPCError.METHOD_NOT_FOUND == -32601
    assert raised.value.method == "till.open" and "not a ScanBridge method" in raised.value.message


def test_invalid_params_name_the_field(scanbridge):
    with pytest.raises(sb.RPCError) as raised:
        scanbridge.call("products.upsert", {"product": {"name": "Tea", "price": "2.005"}})

    assert raised.value.code == sb.RPCError.INVALID_PARAMS
    assert raised.value.field == "product.price" and raised.value.data == {"field": "product.price"}


def test_an_unknown_and_a_gone_device(scanbridge):
    with pytest.raises(sb.RPCError) as unknown:
        scanbridge.inject("till-9", "5901234123457")
    scanbridge.unplug("till-1")
    with pytest.raises(sb.RPCError) as gone:
        scanbridge.inject("till-1", "5901234123457")

    assert (unknown.value.code, gone.value.code) == (sb.RPCError.NOT_FOUND, sb.RPCError.UNAVAILABLE)


def test_a_line_past_the_daemons_limit_is_refused_and_the_next_call_reconnects(scanbridge):
    with pytest.raises(sb.RPCError) as raised:
        scanbridge.call("bridge.hello", {"padding": "x" * (1 << 20)})

    assert raised.value.code == sb.RPCError.INVALID_REQUEST
    assert raised.value.message.startswith("message too large")
    assert not scanbridge.client.connected  # the daemon closed it
    assert scanbridge.call("bridge.hello")["protocol"] == 1


def test_a_socket_with_no_daemon(tmp_path):
    with pytest.raises(sb.NoDaemon, match="no daemon answers"):
        sb.Client(str(tmp_path / "none.sock"))
