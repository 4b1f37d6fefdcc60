"""The client of the web gateway: calls over `POST /v1/rpc`, events over `GET /v1/events` (SSE).

The standard library has HTTP (and TLS) but no WebSocket, and the gateway serves the same
calls and the same events over plain HTTP: that avoids a hand-made RFC 6455 framing. What
needs a WebSocket's lasting connection (`handlers.register`, `products.stage`) is for the
Unix socket client."""

import http.client
import json
import queue
import socket
import ssl
import threading
import time
import urllib.parse
from typing import Any

from .backoff import Backoff
from .errors import ConnectionLost, GatewayError, LineTooLong, ProtocolError, RPCError, ScanBridgeError
from .events import Notice, notice
from .lines import DEFAULT_MAX_LINE_BYTES
from .methods import Methods
from .subscription import Subscription

# The gateway sends `: keep-alive` every 15 s on an idle stream: three missed mean it is gone.
STREAM_SILENCE = 45.0

# What each event name of the stream is as a notification on the socket, and its params.
_STREAM_EVENTS = {
    "scan": ("scan", lambda data: {"event": data}),
    "device.added": ("device.added", lambda data: {"device": data}),
    "device.removed": ("device.removed", lambda data: {"device": data}),
    "device.changed": ("device.changed", lambda data: {"device": data}),
    "gap": ("events.gap", lambda data: data),
    "overflow": ("events.overflow", lambda data: data),
}


class GatewayClient(Methods):
    """Calls and subscriptions through the gateway at `url` (`http://127.0.0.1:8765`), with an access token."""

    def __init__(
        self, url: str, token: str, *, timeout: float = 30.0, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        ssl_context: ssl.SSLContext | None = None,
    ):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url} is not an http:// or https:// address of a gateway")
        self._parts = parts
        self._prefix = parts.path.rstrip("/")
        self._token = token
        self._ssl = ssl_context
        self.timeout = timeout
        self.max_line_bytes = max_line_bytes
        self._next_id = 1

    def call(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        ident = self._next_id
        self._next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}}).encode()
        exchange = self.request(
            "POST", "/v1/rpc", body, {"Content-Type": "application/json"}, self.timeout if timeout is None else timeout
        )
        try:
            response = exchange.response
            payload = _read_body(response, self.max_line_bytes)
        finally:
            exchange.close()
        if response.status == 204:
            return None
        if response.status != 200:
            raise _refusal(response.status, payload)
        try:
            answer = json.loads(payload)
        except (ValueError, RecursionError) as error:
            raise ScanBridgeError(f"{method}: the gateway's answer is not JSON: {error}") from None
        if "error" in answer:
            error = answer["error"] or {}
            raise RPCError(error.get("code", 0), error.get("message", ""), error.get("data"), method)
        return answer.get("result")

    def subscribe(
        self, since: int | None = None, kinds: list[str] | None = None, devices: list[str] | None = None, *,
        backoff: Backoff | None = None, resume: bool = True,
    ) -> Subscription:
        """The event stream after `since` (after the newest journaled event without it), resumed on disconnection."""
        return Subscription(_EventStream(self, kinds, devices), since, backoff, resume)

    def request(self, verb: str, path: str, body: bytes | None, headers: dict[str, str], timeout: float) -> "_Exchange":
        """Sends one request with the token; the caller closes the exchange."""
        host, port = self._parts.hostname, self._parts.port
        if self._parts.scheme == "https":
            context = self._ssl or ssl.create_default_context()
            connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
        else:
            connection = http.client.HTTPConnection(host, port, timeout=timeout)
        try:
            connection.request(verb, self._prefix + path, body, {**headers, "Authorization": f"Bearer {self._token}"})
            sock = connection.sock  # the response may take it over from the connection
            return _Exchange(connection, sock, connection.getresponse())
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            raise ConnectionLost(f"the gateway at {self._parts.netloc} cannot be reached: {error}") from error


class _Exchange:
    """One request's connection, socket and response, closed together."""

    def __init__(self, connection: http.client.HTTPConnection, sock: socket.socket, response: http.client.HTTPResponse):
        self.connection, self._sock, self.response = connection, sock, response

    def close(self) -> None:
        # Shut down first: that wakes a read under way in another thread, whose lock closing waits for.
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.response.close()
        self.connection.close()
        self._sock.close()


def _read_body(response: http.client.HTTPResponse, limit: int) -> bytes:
    try:
        payload = response.read(limit + 1)
    except (OSError, http.client.HTTPException) as error:
        raise ConnectionLost(f"the gateway's answer was cut short: {error}") from error
    if len(payload) > limit:
        raise LineTooLong(f"the gateway's answer passed the bound of {limit} bytes")
    return payload


def _refusal(status: int, payload: bytes) -> ScanBridgeError:
    try:
        error = json.loads(payload)["error"]
        code, message = error.get("code"), error.get("message", "")
    except (ValueError, KeyError, TypeError, AttributeError):
        code, message = None, payload[:200].decode("utf-8", "replace")
    if status >= 500 and code != "unavailable":
        return ConnectionLost(f"the gateway is overloaded or failing (HTTP {status}): {message}")
    return GatewayError(status, code, message)


class _EventStream:
    """One `GET /v1/events`, read by a thread into a bounded queue: when the program reads too
    slowly the thread stops reading, and the gateway ends the stream with `overflow`."""

    def __init__(self, client: GatewayClient, kinds: list[str] | None, devices: list[str] | None):
        self._client = client
        self._filters = {key: ",".join(value) for key, value in (("kinds", kinds), ("devices", devices)) if value}
        self._queue: queue.Queue = queue.Queue(maxsize=256)
        self._exchange: _Exchange | None = None
        self._stopped = threading.Event()

    def open(self, since: int | None) -> int | None:
        if since is None:
            # The stream has no "latest" of its own: start after the newest journaled event, so a
            # reconnection before the first event still has a seq to resume from.
            newest = self._client.recent(limit=1)
            since = newest[-1].seq if newest else 0
        query = urllib.parse.urlencode({"since": since, **self._filters})
        exchange = self._client.request(
            "GET", "/v1/events?" + query, None, {"Accept": "text/event-stream"}, STREAM_SILENCE
        )
        if exchange.response.status != 200:
            try:
                raise _refusal(exchange.response.status, _read_body(exchange.response, self._client.max_line_bytes))
            finally:
                exchange.close()
        self._exchange, self._queue, self._stopped = exchange, queue.Queue(maxsize=256), threading.Event()
        threading.Thread(
            target=self._read, args=(exchange.response, self._queue, self._stopped), name="scanbridge-events",
            daemon=True,
        ).start()
        return since

    def next(self, deadline: float | None) -> Notice:
        try:
            item = self._queue.get(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError("no event before the deadline") from None
        if isinstance(item, BaseException):
            raise item
        return item

    def close(self) -> None:
        self._stopped.set()
        if self._exchange is not None:
            self._exchange.close()  # ends the thread's read
            self._exchange = None

    def _read(self, response: http.client.HTTPResponse, out: queue.Queue, stopped: threading.Event) -> None:
        limit = self._client.max_line_bytes
        try:
            for item in _parse_stream(response, limit):
                while not stopped.is_set():
                    try:
                        out.put(item, timeout=0.5)
                        break
                    except queue.Full:
                        pass
            raise ConnectionLost("the gateway ended the event stream")
        except Exception as error:  # handed to the reading thread, which raises it
            if not isinstance(error, ScanBridgeError):
                error = ConnectionLost(f"the event stream failed: {error}")
            while not stopped.is_set():
                try:
                    out.put(error, timeout=0.5)
                    return
                except queue.Full:
                    pass


def _parse_stream(response: http.client.HTTPResponse, limit: int):
    """The notices of a Server-Sent Events stream, each line and each event's data bounded by `limit`."""
    name, data, size = "", [], 0
    while True:
        line = response.readline(limit + 2)
        if not line:
            return
        if not line.endswith(b"\n"):
            if len(line) > limit:
                raise LineTooLong(f"a line of the event stream passed the bound of {limit} bytes")
            return  # cut short
        line = line.rstrip(b"\r\n")
        if not line:
            if name in _STREAM_EVENTS and data:
                method, params = _STREAM_EVENTS[name]
                try:
                    payload = json.loads(b"\n".join(data))
                except (ValueError, RecursionError) as error:
                    raise ProtocolError(f"an event of the stream is not JSON: {error}") from None
                typed = notice(method, params(payload))
                if typed is not None:
                    yield typed
            name, data, size = "", [], 0
            continue
        if line.startswith(b":"):
            continue  # a comment: the keep-alive
        field, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if field == b"event":
            name = value.decode("utf-8", "replace")
        elif field == b"data":
            size += len(value)
            if size > limit:
                raise LineTooLong(f"an event of the stream passed the bound of {limit} bytes")
            data.append(value)
