"""A client of the ScanBridge daemon: its Unix socket (Client) or its web gateway (GatewayClient).

    import scanbridge
    with scanbridge.Client() as client:
        for event in client.subscribe(since=0):
            print(event)
"""

from importlib import metadata

from .backoff import Backoff
from .client import Client
from .errors import (ConnectionLost, GatewayError, LineTooLong, NoDaemon, ProtocolError, RPCError, ScanBridgeError,
                     UntrustedSocket)
from .events import Device, DeviceEvent, Gap, Product, Resolution, ScanEvent
from .gateway import GatewayClient
from .subscription import Subscription

try:
    __version__ = metadata.version("scanbridge")
except metadata.PackageNotFoundError:  # run from the source folder, not installed
    __version__ = "0"


def connect(address: str | None = None, *, token: str | None = None, **options) -> Client | GatewayClient:
    """A gateway client for an `http(s)://` address (with its token), else a socket client
    (None: the socket found as the CLI finds it)."""
    if address is not None and address.startswith(("http://", "https://")):
        if token is None:
            raise ValueError("the gateway needs an access token (scanbridge tokens create)")
        return GatewayClient(address, token, **options)
    return Client(address, **options)


__all__ = [
    "Backoff", "Client", "ConnectionLost", "Device", "DeviceEvent", "Gap", "GatewayClient", "GatewayError",
    "LineTooLong", "NoDaemon", "Product", "ProtocolError", "RPCError", "Resolution", "ScanBridgeError", "ScanEvent",
    "Subscription", "UntrustedSocket", "connect",
]
