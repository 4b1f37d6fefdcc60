"""Reading newline-delimited messages from a socket, never holding more than one bounded line."""

import socket
import time

from .errors import ConnectionLost, LineTooLong

# The daemon refuses a line over 1 MiB from a client (server.max_line_bytes). Its own lines may
# pass that by a little: `events.recent` carries up to 1 MiB of events and always its newest
# one. Four times the limit leaves room for that and still bounds a peer that never ends a line.
DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024

_CHUNK = 64 * 1024


class LineReader:
    """Lines from a stream socket, each at most `limit` bytes; keeps what a timeout interrupted."""

    def __init__(self, sock: socket.socket, limit: int = DEFAULT_MAX_LINE_BYTES):
        self._sock = sock
        self._limit = limit
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already known to hold no newline

    def read_line(self, deadline: float | None) -> bytes:
        """The next line without its `\\n` (or `\\r\\n`); TimeoutError past `deadline` (time.monotonic)."""
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                self._scanned = 0
                if len(line) > self._limit:
                    raise LineTooLong(f"a line of {len(line)} bytes passed the bound of {self._limit}")
                return line[:-1] if line.endswith(b"\r") else line
            self._scanned = len(self._buffer)
            if self._scanned > self._limit:
                raise LineTooLong(f"a line passed the bound of {self._limit} bytes before it ended")
            self._fill(deadline)

    def _fill(self, deadline: float | None) -> None:
        if deadline is None:
            self._sock.settimeout(None)
        else:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no complete line before the deadline")
            self._sock.settimeout(remaining)
        try:
            # Never more than the bound allows, so one read cannot overshoot it by a large chunk.
            chunk = self._sock.recv(min(_CHUNK, self._limit + 2 - len(self._buffer)) or 1)
        except socket.timeout:
            raise TimeoutError("no complete line before the deadline") from None
        except OSError as error:
            raise ConnectionLost(f"the connection failed: {error}") from error
        if not chunk:
            raise ConnectionLost("the daemon closed the connection")
        self._buffer += chunk
