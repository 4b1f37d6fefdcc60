"""The exceptions of the client: one base class, so a POS can catch everything ScanBridge raises."""

from typing import Any


class ScanBridgeError(Exception):
    """Anything the client raises on purpose."""


class RPCError(ScanBridgeError):
    """The daemon answered a call with a JSON-RPC error (docs/protocol.md, Errors)."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    NOT_FOUND = -32001
    CONFLICT = -32002
    FORBIDDEN = -32003
    UNAVAILABLE = -32004
    OVERLOADED = -32005

    def __init__(self, code: int, message: str, data: Any = None, method: str | None = None):
        super().__init__(f"{method + ': ' if method else ''}error {code}: {message}")
        self.code = code
        self.message = message
        self.data = data
        self.method = method

    @property
    def field(self) -> str | None:
        """The parameter at fault, which every -32602 names (`data.field`)."""
        return self.data.get("field") if isinstance(self.data, dict) else None


class ConnectionLost(ScanBridgeError, ConnectionError):
    """The connection ended, or could not be made; trying again later may work."""


class NoDaemon(ConnectionLost):
    """No daemon answers at any socket the client tried."""


class UntrustedSocket(ScanBridgeError):
    """The socket's folder is writable by every user, so any user could have put a fake daemon there."""


class ProtocolError(ScanBridgeError):
    """The peer sent something the protocol does not allow; the connection is closed."""


class LineTooLong(ProtocolError):
    """A line (or an event of the gateway's stream) passed the client's bound before it ended."""


class GatewayError(ScanBridgeError):
    """The gateway refused a request at the HTTP level (401, 403, 413, 503…), with its `code` word."""

    def __init__(self, status: int, code: str | None, message: str):
        super().__init__(f"HTTP {status}{' ' + code if code else ''}: {message}")
        self.status = status
        self.code = code
        self.message = message
