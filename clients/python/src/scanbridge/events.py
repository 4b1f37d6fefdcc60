"""Typed views of what the daemon sends (docs/protocol.md, Data types and Notifications).

Each class reads its JSON object with `from_json`. Members it does not name are kept in
`extra`, so a newer daemon's additions reach the program instead of breaking it.
"""

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

T = TypeVar("T")


def _wire(name: str, convert: Callable[[Any], Any] | None = None, default: Any = None) -> Any:
    """A field read from the JSON member `name`, through `convert` when the member is there."""
    return field(default=default, metadata={"wire": name, "convert": convert})


def _snake_to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _from_json(cls: type[T], obj: Any) -> T:
    if not isinstance(obj, dict):
        raise TypeError(f"{cls.__name__} is a JSON object, not {type(obj).__name__}")
    values: dict[str, Any] = {}
    known = set()
    for item in dataclasses.fields(cls):
        if item.name == "extra":
            continue
        wire = item.metadata.get("wire") or _snake_to_camel(item.name)
        known.add(wire)
        if wire in obj:
            convert = item.metadata.get("convert")
            value = obj[wire]
            values[item.name] = convert(value) if convert and value is not None else value
    values["extra"] = {key: value for key, value in obj.items() if key not in known}
    return cls(**values)


class _FromJSON:
    @classmethod
    def from_json(cls, obj: Any):
        return _from_json(cls, obj)


@dataclass
class Device(_FromJSON):
    """A device the daemon knows: `state` is `ready`, `busy`, `error` or `gone`."""

    id: str = ""
    driver: str = ""
    kind: str = ""
    name: str = ""
    state: str = ""
    error: str | None = None
    hint: str | None = None
    vendor_id: str | None = None
    product_id: str | None = None
    serial: str | None = None
    path: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Product(_FromJSON):
    """A catalog product; `price` is a decimal string with its currency's decimals ("3.50")."""

    id: str = ""
    name: str = ""
    price: str = ""
    currency: str = ""
    store_id: str | None = None
    sku: str | None = None
    category: str | None = None
    barcode: str | None = None
    gtin: str | None = None
    track_stock: bool | None = None
    quantity: int | None = None
    low_stock_threshold: int | None = None
    allow_negative_stock: bool | None = None
    stock_status: str | None = None
    can_sell: bool | None = None
    parent_id: str | None = None
    variant: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Resolution(_FromJSON):
    """What the handler that took an event answered; its own members (`reason`, `card`…) are in `extra`."""

    handler: str | None = None
    status: str = ""
    message: str | None = None
    gtin: str | None = None
    product: Product | None = _wire("product", Product.from_json)
    extra: dict[str, Any] = field(default_factory=dict)

    def get(self, name: str, default: Any = None) -> Any:
        """A member of the handler's own by its JSON name, such as `reason`, `card` or `order`."""
        return self.extra.get(name, default)


@dataclass
class ScanEvent(_FromJSON):
    """One journaled read (docs/protocol.md, ScanEvent); optional members are None when absent."""

    seq: int = 0
    id: str = ""
    time: str = ""
    device: str = ""
    driver: str = ""
    kind: str = ""
    symbology: str = ""
    text: str = ""
    resolution: Resolution = _wire("resolution", Resolution.from_json, None)
    raw: str | None = None
    aim: str | None = None
    gtin: str | None = None
    uid: str | None = None
    uid_display: str | None = None
    atr: str | None = None
    card_type: str | None = None
    ndef: list[dict[str, Any]] | None = None
    gs1: dict[str, str] | None = None
    embedded: dict[str, Any] | None = None
    # A tap's Secure Unique NFC message as the daemon judged it: `verified`, and `counter`.
    sun: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.resolution is None:
            self.resolution = Resolution(handler=None, status="unhandled")

    @property
    def product(self) -> Product | None:
        """The product the resolution found, if any."""
        return self.resolution.product


@dataclass
class DeviceEvent:
    """`device.added`, `device.removed` or `device.changed`: `change` is the part after `device.`."""

    change: str
    device: Device


@dataclass
class Gap:
    """Events `first` to `last` were asked for by `since` but the journal no longer keeps them."""

    first: int
    last: int


@dataclass
class Overflow:
    """The subscription read too slowly and was closed; the client resumes it from the last seq."""

    dropped: int


Notice = ScanEvent | DeviceEvent | Gap | Overflow

_DEVICE_METHOD = re.compile(r"^device\.(added|removed|changed)$")


def notice(method: str, params: dict[str, Any]) -> Notice | None:
    """The typed form of a subscription's notification, or None for a method this client does not know."""
    if method == "scan":
        return ScanEvent.from_json(params.get("event"))
    if match := _DEVICE_METHOD.match(method):
        return DeviceEvent(match.group(1), Device.from_json(params.get("device")))
    if method == "events.gap":
        return Gap(int(params.get("from", 0)), int(params.get("to", 0)))
    if method == "events.overflow":
        return Overflow(int(params.get("dropped", 0)))
    return None
