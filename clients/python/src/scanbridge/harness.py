"""What the `scanbridge` pytest fixture hands a test: a private daemon with mock devices, and a
client of it that has watched every event from the start."""

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from .backoff import Backoff
from .client import Client
from .daemon import Daemon, time_scale
from .events import Device, DeviceEvent, Gap, ScanEvent
from .subscription import Subscription

# One device of each kind, named as in the demo (demo/scanbridge.yaml).
DEFAULT_MOCKS = ("barcode:till-1", "nfc:counter-reader", "qr:bench-camera")


def mock_id(device: str) -> str:
    """`till-1` means `mock:till-1`, as for the CLI: only mock devices take these calls."""
    return device if ":" in device else "mock:" + device


def find_executable(variable: str, name: str) -> str | None:
    """The program `$variable` names, else `name` on PATH."""
    named = os.environ.get(variable)
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which(name)


class Harness:
    """A daemon started with `--drivers mock` in `folder`, and an admin client of its socket."""

    def __init__(
        self, executable: str, folder: Path, *, mocks: tuple[str, ...] = DEFAULT_MOCKS, http: bool | str = False,
        config: str = "", cli: str | None = None,
    ):
        self.daemon = Daemon(executable, folder, mocks=tuple(mocks), http=http, config=config)
        self.cli = cli
        self.daemon.start()
        self.client = Client(self.daemon.socket_path, timeout=10.0 * time_scale())
        self._clients = [self.client]
        # Every event from the journal's start; it follows the daemon across restart().
        self._events = self.subscribe(since=0)

    @property
    def socket_path(self) -> str:
        return self.daemon.socket_path

    @property
    def gateway_url(self) -> str:
        """The gateway's address, for a fixture marked `http=True`."""
        if not self.daemon.http_addresses:
            raise RuntimeError("the gateway is off: mark the test @pytest.mark.scanbridge(http=True)")
        return "http://" + self.daemon.http_addresses[0]

    def call(self, method: str, params: dict[str, Any] | None = None, **options: Any) -> Any:
        return self.client.call(method, params, **options)

    def inject(self, device: str, code: str | None = None, *, uid: str | None = None,
               symbology: str | None = None) -> ScanEvent:
        """Makes mock `device` read `code` (a barcode or QR text) or tap the card `uid`."""
        return self.client.inject(mock_id(device), code, uid=uid, symbology=symbology)

    def plug(self, kind: str, id: str | None = None, name: str | None = None) -> Device:
        """Plugs in a mock device (`nfc`, `barcode` or `qr`), or plugs a gone one back in."""
        return self.client.attach_mock(kind, id, name)

    def unplug(self, id: str) -> None:
        self.client.detach_mock(mock_id(id))

    def events(self) -> Subscription:
        """Every event since the daemon started, in order: iterate it, or call its `next(timeout)`."""
        return self._events

    def next_event(self, timeout: float = 10.0) -> ScanEvent | DeviceEvent | Gap:
        """The next event of `events()`; TimeoutError saying so when none comes in time."""
        return self._events.next(timeout * time_scale())

    def next_scan(self, timeout: float = 10.0) -> ScanEvent:
        """The next scan of `events()`, skipping device events."""
        while not isinstance(event := self.next_event(timeout), ScanEvent):
            pass
        return event

    def subscribe(self, since: int | None = None, **filters: Any) -> Subscription:
        """A subscription on a connection of its own, resuming across restarts within 30 s."""
        client = Client(self.daemon.socket_path, timeout=10.0 * time_scale())
        self._clients.append(client)
        return client.subscribe(since, backoff=Backoff(initial=0.05, maximum=1.0, give_up_after=30.0 * time_scale()),
                                **filters)

    def token(self, role: str = "operator", name: str = "pytest") -> str:
        """A gateway access token's secret (`tokens.create`, on the socket)."""
        return self.call("tokens.create", {"name": name, "role": role})["secret"]

    def import_products(self, path: str | os.PathLike) -> dict[str, Any]:
        """Imports a CSV or JSON catalog with `scanbridge products import`, as a shop would."""
        if self.cli is None:
            raise RuntimeError("no scanbridge CLI: set SCANBRIDGE_CLI or put scanbridge on PATH")
        done = subprocess.run([self.cli, "products", "import", str(path), "--socket", self.socket_path, "--json"],
                              capture_output=True, text=True, timeout=60 * time_scale())
        if done.returncode != 0:
            raise RuntimeError(f"scanbridge products import failed ({done.returncode}): {done.stderr.strip()}")
        return json.loads(done.stdout)

    def restart(self, *, kill: bool = False) -> None:
        """Stops the daemon (SIGTERM and a checked exit, or SIGKILL) and starts it on the same database."""
        self.daemon.kill() if kill else self.daemon.stop()
        self.daemon.start()

    def log(self) -> str:
        return self.daemon.log()

    def close(self) -> None:
        """Stops the daemon with SIGTERM; DaemonFailed when it does not stop cleanly."""
        self._events.close()
        for client in self._clients:
            client.close()
        try:
            self.daemon.stop()
        finally:
            self.daemon.remove()
