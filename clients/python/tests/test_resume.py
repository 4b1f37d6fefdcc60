"""Subscriptions across a daemon's restart: resumed from the last seq, nothing missed or doubled."""

import pytest

import scanbridge as sb


def scans(subscription, count):
    seqs = []
    while len(seqs) < count:
        event = subscription.next(timeout=20)
        if isinstance(event, sb.ScanEvent):
            seqs.append(event.seq)
    return seqs


@pytest.mark.parametrize("kill", [True, False], ids=["killed", "stopped"])
def test_a_subscription_resumes_after_the_daemon_restarts(scanbridge, kill):
    subscription = scanbridge.subscribe(since=0)
    for n in range(5):
        scanbridge.inject("till-1", f"SKU-{n}", symbology="code-128")
    assert scans(subscription, 4) == [1, 2, 3, 4]  # the fifth is read after the restart

    scanbridge.restart(kill=kill)
    for n in range(5, 8):  # journaled while the subscriber is away
        scanbridge.inject("till-1", f"SKU-{n}", symbology="code-128")

    assert scans(subscription, 3) == [5, 6, 7]
    scanbridge.inject("till-1", "SKU-8", symbology="code-128")
    assert scans(subscription, 1) == [8]
    assert subscription.last_seq == 8
    # The fixture's own stream followed the restart too.
    assert [scanbridge.next_scan().seq for _ in range(8)] == list(range(1, 9))


def test_a_subscription_waits_out_a_daemon_that_is_down(scanbridge):
    subscription = scanbridge.subscribe()  # live only: it resumes after the seq subscribe answered
    scanbridge.inject("till-1", "SKU-1", symbology="code-128")
    assert scans(subscription, 1) == [1]

    scanbridge.daemon.kill()
    with pytest.raises(TimeoutError):
        subscription.next(timeout=0.5)  # reconnecting, with back-off, meanwhile
    scanbridge.daemon.start()
    scanbridge.inject("till-1", "SKU-2", symbology="code-128")

    assert scans(subscription, 1) == [2]


def test_a_subscriber_that_falls_behind_resumes_from_the_journal(scanbridge):
    # A client that keeps at most 5 notices: past that it drops them and asks the journal again.
    client = sb.Client(scanbridge.socket_path, max_queued=5)
    try:
        subscription = client.subscribe(since=0, kinds=["barcode"])
        injected = [client.inject("mock:till-1", f"SKU-{n}", symbology="code-128").seq for n in range(30)]

        assert scans(subscription, 30) == injected
    finally:
        client.close()


def test_a_gone_daemon_is_given_up_on_after_the_back_off_bound(scanbridge):
    client = sb.Client(scanbridge.socket_path)
    try:
        subscription = client.subscribe(since=0, backoff=sb.Backoff(initial=0.01, maximum=0.05, give_up_after=0.3))
        scanbridge.daemon.kill()
        with pytest.raises(sb.ConnectionLost, match="gave up"):
            while True:
                subscription.next(timeout=5)
    finally:
        client.close()
        scanbridge.daemon.start()  # the fixture's teardown stops it
