"""Scans through the fixture: injected reads come back typed and resolved, live and in order."""

from pathlib import Path

import scanbridge as sb

CATALOG = Path(__file__).resolve().parents[3] / "demo" / "catalog.csv"


def test_checkout(scanbridge):
    scanbridge.import_products(CATALOG)

    event = scanbridge.inject("till-1", "5901234123457")

    assert isinstance(event, sb.ScanEvent)
    assert (event.device, event.kind, event.symbology) == ("mock:till-1", "barcode", "ean-13")
    assert event.gtin == "05901234123457"
    assert (event.resolution.handler, event.resolution.status) == ("product-lookup", "found")
    assert isinstance(event.product, sb.Product)
    assert (event.product.name, event.product.price, event.product.currency) == ("Cappuccino", "3.50", "GBP")
    assert event.product.can_sell is True and event.product.stock_status == "inStock"
    seen = scanbridge.next_scan()
    assert (seen.seq, seen.id, seen.product.name) == (event.seq, event.id, "Cappuccino")


def test_a_code_not_in_the_catalog_and_a_bad_check_digit(scanbridge):
    missing = scanbridge.inject("till-1", "4006381333931")
    invalid = scanbridge.inject("till-1", "5901234123450")

    assert missing.resolution.status == "not_found" and missing.product is None
    assert "04006381333931" in missing.resolution.get("reason")
    assert invalid.resolution.status == "invalid"
    assert invalid.resolution.get("reason") == "the check digit is 0 but should be 7 for 590123412345"


def test_an_nfc_tap_is_typed(scanbridge):
    event = scanbridge.inject("counter-reader", uid="04:a1:b2:c3:d4:e5:f6")

    assert (event.kind, event.uid, event.uid_display) == ("nfc", "04A1B2C3D4E5F6", "04:A1:B2:C3:D4:E5:F6")
    assert (event.resolution.handler, event.resolution.status) == ("card-link", "unknown")


def test_scans_arrive_in_seq_order_with_nothing_doubled(scanbridge):
    injected = [scanbridge.inject("till-1", f"SKU-{n}", symbology="code-128").seq for n in range(20)]

    assert [scanbridge.next_scan().seq for _ in injected] == injected == list(range(1, 21))


def test_the_package_version_is_the_daemons(scanbridge):
    hello = scanbridge.client.hello()

    assert hello["protocol"] == 1 and hello["role"] == "admin"
    assert hello["version"] == sb.__version__, "clients/python/pyproject.toml's version is the daemon's"
