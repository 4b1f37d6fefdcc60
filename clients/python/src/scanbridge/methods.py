"""The typed calls both clients share; each client supplies `call` and `subscribe`."""

from typing import Any

from .events import Device, Product, Resolution, ScanEvent


class Methods:
    """Typed wrappers of the methods a POS uses most; `call` reaches every other."""

    def call(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        raise NotImplementedError

    def hello(self, name: str = "scanbridge-python", version: str | None = None) -> dict[str, Any]:
        """`bridge.hello`: who the daemon is, the protocol (1), this connection's role."""
        from . import __version__

        return self.call("bridge.hello", {"client": {"name": name, "version": version or __version__}})

    def devices(self) -> list[Device]:
        return [Device.from_json(item) for item in self.call("devices.list")["devices"]]

    def inject(
        self, device: str, text: str | None = None, *, uid: str | None = None, symbology: str | None = None,
        raw: str | None = None,
    ) -> ScanEvent:
        """`scan.inject` on a mock device: the event as journaled, with its seq and resolution."""
        params = {"device": device, "text": text, "uid": uid, "symbology": symbology, "raw": raw}
        result = self.call("scan.inject", {key: value for key, value in params.items() if value is not None})
        return ScanEvent.from_json(result["event"])

    def attach_mock(self, kind: str, id: str | None = None, name: str | None = None) -> Device:
        """`mock.attach`: plugs in a mock device, or plugs a gone one back in."""
        params = {"kind": kind, "id": id, "name": name}
        result = self.call("mock.attach", {key: value for key, value in params.items() if value is not None})
        return Device.from_json(result["device"])

    def detach_mock(self, id: str) -> None:
        """`mock.detach`: unplugs a mock device (`mock:…`); it stays listed as gone."""
        self.call("mock.detach", {"id": id})

    def lookup(self, code: str) -> Resolution:
        """`products.lookup`: what a scan of `code` would resolve to (its `handler` is None)."""
        return Resolution.from_json(self.call("products.lookup", {"code": code}))

    def recent(self, limit: int = 50, kinds: list[str] | None = None) -> list[ScanEvent]:
        """`events.recent`: the newest journaled events, oldest first."""
        params: dict[str, Any] = {"limit": limit}
        if kinds:
            params["kinds"] = kinds
        return [ScanEvent.from_json(item) for item in self.call("events.recent", params)["events"]]

    def upsert_products(self, products: list[dict[str, Any]]) -> list[Product]:
        """`products.upsert` of a batch, in one transaction."""
        return [Product.from_json(item) for item in self.call("products.upsert", {"products": products})["products"]]
