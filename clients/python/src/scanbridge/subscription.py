"""A stream of events that survives disconnections: it resumes from the last seq it gave out."""

import time
from typing import Protocol

from .backoff import Backoff
from .errors import ConnectionLost
from .events import DeviceEvent, Gap, Notice, Overflow, ScanEvent


class Source(Protocol):
    """One transport's stream of notices (the socket's `events.subscribe`, the gateway's `/v1/events`)."""

    def open(self, since: int | None) -> int | None:
        """Starts a stream after `since`; answers the latest seq when the transport says it."""

    def next(self, deadline: float | None) -> Notice:
        """The next notice; TimeoutError past `deadline`, ConnectionLost when the stream ended."""

    def close(self) -> None:
        """Ends the stream; never raises."""


class Subscription:
    """Iterate it for ScanEvent, DeviceEvent and Gap, in the daemon's order.

    It keeps the last seq it gave out (`last_seq`). When the connection ends, or the daemon
    closes the subscription for reading too slowly, it opens the stream again with `since`
    that seq, after the back-off's delays: each event comes once, none is skipped (except
    what retention dropped, which a Gap reports)."""

    def __init__(self, source: Source, since: int | None, backoff: Backoff | None = None, resume: bool = True):
        self._source = source
        self._backoff = backoff or Backoff()
        self._resume = resume
        self._delays = None  # the back-off's waits while reconnecting, None while connected
        self._retry_at = 0.0
        self._open = False
        self.last_seq = since
        self._start()

    def __iter__(self):
        return self

    def __next__(self) -> ScanEvent | DeviceEvent | Gap:
        return self.next()

    def next(self, timeout: float | None = None) -> ScanEvent | DeviceEvent | Gap:
        """The next event; TimeoutError when none comes within `timeout` seconds (None waits forever)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if not self._open:
                self._reopen(deadline)
            try:
                item = self._source.next(deadline)
            except ConnectionLost:
                self._close()
                if not self._resume:
                    raise
                continue
            if isinstance(item, Overflow):
                self._close()  # the daemon closed it; the journal has what was dropped
                continue
            if isinstance(item, ScanEvent):
                if self.last_seq is not None and item.seq <= self.last_seq:
                    continue  # a replay's overlap with what came before the disconnection
                self.last_seq = item.seq
            elif isinstance(item, Gap):
                self.last_seq = max(self.last_seq or 0, item.last)
            return item

    def close(self) -> None:
        """Ends the subscription; iterating it again opens it anew from `last_seq`."""
        self._close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _close(self) -> None:
        if self._open:
            self._open = False
            self._source.close()

    def _start(self) -> None:
        latest = self._source.open(self.last_seq)
        if self.last_seq is None:
            self.last_seq = latest
        self._open = True
        self._delays = None

    def _reopen(self, deadline: float | None) -> None:
        if self._delays is None:
            self._delays = iter(self._backoff.delays())
            self._retry_at = time.monotonic()
        while True:
            wait = self._retry_at - time.monotonic()
            if deadline is not None and time.monotonic() + max(wait, 0) > deadline:
                time.sleep(max(0.0, deadline - time.monotonic()))
                raise TimeoutError("no event before the deadline: still reconnecting to the daemon")
            if wait > 0:
                time.sleep(wait)
            try:
                self._start()
                return
            except ConnectionLost as error:
                delay = next(self._delays, None)
                if delay is None:
                    raise ConnectionLost(f"gave up reconnecting to the daemon: {error}") from error
                self._retry_at = time.monotonic() + delay
