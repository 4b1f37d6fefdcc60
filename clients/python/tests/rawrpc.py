"""A bare JSON-RPC line client that keeps every message whole, for checking the wire itself.

The package's clients turn what they read into typed objects; the contract tests need the
JSON as the daemon wrote it. Standard library only, as it also runs as a script under
another user (`python3 -I rawrpc.py SOCKET < calls.json`), who cannot import the package
from root's venv: it then makes the calls on stdin, `[[method, params], …]`, and prints
what came back, `{"responses": […], "notifications": […]}`.
"""

import json
import socket
import sys
import time
from typing import Any


class RawConnection:
    """One socket connection; notifications and daemon requests read on the way are kept in order."""

    def __init__(self, path: str, timeout: float = 20.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.timeout = timeout
        self.notifications: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self._buffer = b""
        self._next_id = 1

    def close(self) -> None:
        self.sock.close()

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The whole response (`result` or `error`) to one request."""
        ident = self._next_id
        self._next_id += 1
        self.send({"id": ident, "method": method, "params": params or {}})
        while True:
            message = self.read()
            if message.get("id") == ident and "method" not in message:
                return message

    def read(self) -> dict[str, Any]:
        """The next message; a notification or daemon request is also kept."""
        while b"\n" not in self._buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the daemon closed the connection")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        message = json.loads(line)
        if "method" in message:
            (self.requests if "id" in message else self.notifications).append(message)
        return message

    def wait_for(self, count: int, method: str = "scan") -> list[dict[str, Any]]:
        """Reads until `count` notifications of `method` were kept; TimeoutError past the timeout."""
        deadline = time.monotonic() + self.timeout
        while sum(1 for item in self.notifications if item["method"] == method) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"fewer than {count} {method} notifications came")
            self.read()
        return [item for item in self.notifications if item["method"] == method]


def main() -> None:
    connection = RawConnection(sys.argv[1])
    calls = json.load(sys.stdin)
    responses = [connection.call(method, params) for method, params in calls]
    scans = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    connection.wait_for(scans)
    json.dump({"responses": responses, "notifications": connection.notifications}, sys.stdout)
    connection.close()


if __name__ == "__main__":
    main()
