"""The marker that changes how the fixture starts its daemon."""

import pytest


@pytest.mark.scanbridge(mocks=["qr:door"], config="catalog:\n  currency: EUR\n")
def test_a_marker_names_the_mocks_and_the_config(scanbridge):
    assert [device.id for device in scanbridge.client.devices()] == ["mock:door"]
    scanbridge.call("products.upsert", {"product": {"name": "Tea", "price": "2.00", "barcode": "4006381333931"}})
    assert scanbridge.client.lookup("4006381333931").product.currency == "EUR"
