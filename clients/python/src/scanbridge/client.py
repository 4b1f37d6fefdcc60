"""The client of the daemon's Unix socket: JSON-RPC 2.0, one message per line (docs/protocol.md)."""

import json
import socket
import time
from collections import deque
from typing import Any

from . import paths
from .backoff import Backoff
from .errors import ConnectionLost, NoDaemon, ProtocolError, RPCError
from .events import Notice, Overflow, notice
from .lines import DEFAULT_MAX_LINE_BYTES, LineReader
from .methods import Methods
from .subscription import Subscription


class Client(Methods):
    """One connection to the daemon's socket, for one thread at a time.

    Calls wait for their own answer; notifications that come meanwhile wait, per subscription,
    for `subscribe`'s iterator. A call after the connection was lost connects again."""

    def __init__(
        self, socket_path: str | None = None, *, timeout: float = 30.0,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, max_queued: int = 10_000, connect: bool = True,
    ):
        self._explicit = socket_path
        self.socket_path: str | None = None
        self.timeout = timeout
        self.max_line_bytes = max_line_bytes
        self.max_queued = max_queued
        self._sock: socket.socket | None = None
        self._reader: LineReader | None = None
        self._generation = 0  # counts connections, so a subscription knows its id belongs to a lost one
        self._next_id = 1
        self._waiting: set[int] = set()
        self._answers: dict[int, dict[str, Any]] = {}
        self._inboxes: dict[str, deque] = {}
        self._refusal: dict[str, Any] | None = None  # an error with id null: the daemon refused a line
        if connect:
            self.connect()

    @property
    def connected(self) -> bool:
        return self._sock is not None

    def connect(self) -> None:
        """Connects to the first socket that answers, as the CLI tries them."""
        self.close()
        tried = []
        for path in paths.candidates(self._explicit):
            paths.check_folder(path)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(self.timeout)
                sock.connect(path)
            except (FileNotFoundError, ConnectionRefusedError) as error:
                sock.close()
                tried.append(f"{path} ({error.strerror})")
                continue
            except OSError as error:
                sock.close()
                raise ConnectionLost(f"cannot connect to {path}: {error}") from error
            self._sock, self.socket_path = sock, path
            self._reader = LineReader(sock, self.max_line_bytes)
            self._generation += 1
            self._refusal = None
            return
        raise NoDaemon("no daemon answers at " + ", ".join(tried) + ": is scanbridged running?")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = self._reader = None
        self._inboxes.clear()
        self._answers.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def call(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """Calls `method` and returns its result; RPCError for an error answer, TimeoutError for none."""
        if not self.connected:
            self.connect()
        ident = self._next_id
        self._next_id += 1
        request = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}}
        seconds = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + seconds
        self._waiting.add(ident)
        line = json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode()
        try:
            try:
                self.send_raw(line)
            except ConnectionLost:
                # A daemon that restarted since the last call closed this connection before taking
                # any of the line: nothing was run, so the call goes on a new connection.
                self._raise_refusal(method)
                self.connect()
                self.send_raw(line)
            while ident not in self._answers:
                self._raise_refusal(method)
                try:
                    self._read_message(deadline)
                except TimeoutError:
                    raise TimeoutError(f"{method}: no answer within {seconds} s") from None
        except ConnectionLost:
            self._raise_refusal(method)
            raise
        finally:
            self._waiting.discard(ident)
        answer = self._answers.pop(ident)
        if "error" in answer:
            error = answer["error"] or {}
            raise RPCError(error.get("code", 0), error.get("message", ""), error.get("data"), method)
        return answer.get("result")

    def send_raw(self, line: bytes, terminated: bool = True) -> None:
        """Sends bytes as they are (with `\\n` unless told otherwise): for tests of the daemon's framing."""
        if self._sock is None:
            raise ConnectionLost("not connected")
        try:
            self._sock.settimeout(self.timeout)
            self._sock.sendall(line + b"\n" if terminated else line)
        except OSError as error:
            # The daemon may have refused the line and closed before taking all of it: its
            # answer can still be read.
            self._drain()
            self._lost()
            raise ConnectionLost(f"the connection failed while sending: {error}") from error

    def subscribe(
        self, since: int | None = None, kinds: list[str] | None = None, devices: list[str] | None = None, *,
        backoff: Backoff | None = None, resume: bool = True,
    ) -> Subscription:
        """`events.subscribe`: with `since`, every journaled event after it first, then the live ones.

        The subscription resumes after a disconnection (see Subscription); it shares this connection."""
        return Subscription(_SocketStream(self, kinds, devices), since, backoff, resume)

    def _read_message(self, deadline: float | None) -> None:
        assert self._reader is not None
        try:
            line = self._reader.read_line(deadline)
        except ConnectionLost:
            self._lost()
            raise
        except ProtocolError:
            self._lost()  # the rest of an endless line cannot be told from the next message
            raise
        if not line.strip(b" \t"):
            return
        try:
            message = json.loads(line)
        except (ValueError, RecursionError) as error:
            self._lost()
            raise ProtocolError(f"the daemon sent a line that is not JSON: {error}") from None
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict):
                self._dispatch(item)

    def _dispatch(self, message: dict[str, Any]) -> None:
        method, ident = message.get("method"), message.get("id")
        if isinstance(method, str) and ident is not None:
            # A daemon request (handler.resolve): this client registers no handler, so say so at once.
            error = {"code": RPCError.METHOD_NOT_FOUND, "message": "this client serves no daemon requests"}
            answer = json.dumps({"jsonrpc": "2.0", "id": ident, "error": error}).encode() + b"\n"
            try:
                self._sock.sendall(answer)
            except (OSError, AttributeError):
                pass  # the connection is going; the next read says so
        elif isinstance(method, str):
            params = message.get("params") or {}
            subscription = params.get("subscription") if isinstance(params, dict) else None
            if isinstance(subscription, str):
                self._keep(subscription, method, params)
        elif ident is None and "error" in message:
            self._refusal = message["error"]
        elif ident in self._waiting:
            self._answers[ident] = message

    def _keep(self, subscription: str, method: str, params: dict[str, Any]) -> None:
        # Kept even before `events.subscribe` answers: its first notices may come ahead of the answer.
        inbox = self._inboxes.setdefault(subscription, deque())
        if inbox and isinstance(inbox[-1], Overflow):
            return  # dropped already; the subscription resumes from the journal
        if len(inbox) >= self.max_queued:
            inbox.clear()
            inbox.append(Overflow(self.max_queued))
            return
        inbox.append((method, params))

    def _next_notice(self, subscription: str, generation: int, deadline: float | None) -> Notice:
        while True:
            if generation != self._generation or self._sock is None:
                raise ConnectionLost("the subscription's connection was lost")
            inbox = self._inboxes.get(subscription)
            while inbox:
                item = inbox.popleft()
                if isinstance(item, Overflow):
                    return item
                typed = notice(*item)
                if typed is not None:
                    return typed
            self._read_message(deadline)

    def _forget(self, subscription: str, generation: int) -> None:
        self._inboxes.pop(subscription, None)
        if generation == self._generation and self._sock is not None:
            try:
                self.call("events.unsubscribe", {"subscription": subscription})
            except (RPCError, ConnectionLost, TimeoutError, ProtocolError):
                pass  # closed already (an overflow), or the connection went: nothing to end

    def _raise_refusal(self, method: str) -> None:
        if self._refusal is not None:
            # The refusals with id null that this client's lines can meet (too large, too many
            # connections, a peer without a role) all close the connection.
            error, self._refusal = self._refusal, None
            self._lost()
            raise RPCError(error.get("code", 0), error.get("message", ""), error.get("data"), method)

    def _drain(self) -> None:
        try:
            while self._reader is not None and self._refusal is None:
                self._read_message(time.monotonic() + 1.0)
        except (ConnectionLost, ProtocolError, TimeoutError):
            pass

    def _lost(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = self._reader = None
        self._inboxes.clear()


class _SocketStream:
    """A subscription's notices on the client's connection, connecting again when it was lost."""

    def __init__(self, client: Client, kinds: list[str] | None, devices: list[str] | None):
        self._client = client
        self._filters = {key: value for key, value in (("kinds", kinds), ("devices", devices)) if value is not None}
        self._id: str | None = None
        self._generation = 0

    def open(self, since: int | None) -> int | None:
        if not self._client.connected:
            self._client.connect()
        params = dict(self._filters)
        if since is not None:
            params["since"] = since
        result = self._client.call("events.subscribe", params)
        self._id, self._generation = result["subscription"], self._client._generation
        return result.get("seq")

    def next(self, deadline: float | None) -> Notice:
        assert self._id is not None
        return self._client._next_notice(self._id, self._generation, deadline)

    def close(self) -> None:
        if self._id is not None:
            self._client._forget(self._id, self._generation)
            self._id = None
