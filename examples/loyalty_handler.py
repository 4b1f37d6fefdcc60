#!/usr/bin/env python3
"""An out-of-process ScanBridge handler in plain Python (standard library only).

It registers as the handler of loyalty cards printed as barcodes or QR codes
("LOYALTY-0042"), at a priority above the built-in handlers, and answers every
`handler.resolve` request the daemon sends with the member the code names.

    python3 examples/loyalty_handler.py [--socket PATH]

The socket is found as the daemon's is (docs/protocol.md, "The socket"): --socket,
$SCANBRIDGE_SOCKET, $RUNTIME_DIRECTORY/scanbridge.sock,
$XDG_RUNTIME_DIR/scanbridge/scanbridge.sock, else the system daemon's
/run/scanbridge/scanbridge.sock. Registering needs the admin role. Like the
scanbridge CLI, it refuses a socket in a folder every user may write in, where
another user could have put a fake daemon.
"""

import argparse
import json
import os
import socket
import stat
import sys

MEMBERS = {
    "LOYALTY-0042": {"name": "Ada Lovelace", "points": 1200, "tier": "gold"},
    "LOYALTY-0007": {"name": "Grace Hopper", "points": 80, "tier": "silver"},
}


def socket_path(explicit):
    if explicit:
        return explicit
    if os.environ.get("SCANBRIDGE_SOCKET"):
        return os.environ["SCANBRIDGE_SOCKET"]
    if os.environ.get("RUNTIME_DIRECTORY"):
        return os.path.join(os.environ["RUNTIME_DIRECTORY"].split(":")[0], "scanbridge.sock")
    if os.environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(os.environ["XDG_RUNTIME_DIR"], "scanbridge", "scanbridge.sock")
    return "/run/scanbridge/scanbridge.sock"


def refuse_untrusted(path):
    """Exits when any user could have put the socket there (docs/protocol.md, "The socket")."""
    folder = os.path.dirname(os.path.abspath(path))
    mode = os.stat(folder).st_mode
    if mode & stat.S_IWOTH:
        sys.exit(f"refusing to connect to {path}: its folder {folder} is writable by every user "
                 f"(mode {stat.S_IMODE(mode):04o}); use a socket in a folder others cannot write "
                 f"(`chmod o-w {folder}`)")


def resolve(event):
    """The resolution of one event: what the daemon puts in the event's `resolution`."""
    member = MEMBERS.get(event.get("text", "").strip().upper())
    if member is None:
        return {"status": "not_found", "reason": "no loyalty member with this card"}
    return {"status": "found", "member": member}


def send(sock, message):
    sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket")
    parser.add_argument("--name", default="loyalty")
    args = parser.parse_args()

    path = socket_path(args.socket)
    refuse_untrusted(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    send(sock, {"jsonrpc": "2.0", "id": 1, "method": "handlers.register", "params": {
        "name": args.name,
        "match": {"kinds": ["barcode", "qr"], "pattern": "(?i)^LOYALTY-"},
        "priority": 10,
    }})

    # One JSON-RPC message per line; responses, notifications and daemon requests interleave.
    for line in sock.makefile("rb"):
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("id") == 1 and "method" not in message:
            if "error" in message:
                sys.exit(f"registration refused: {message['error']['message']}")
            print(f"registered as {message['result']['handler']}", flush=True)
        elif message.get("method") == "handler.resolve":
            try:
                result = resolve(message["params"]["event"])
                send(sock, {"jsonrpc": "2.0", "id": message["id"], "result": result})
            except Exception as error:  # a bug here must not kill the handler
                send(sock, {"jsonrpc": "2.0", "id": message["id"],
                            "error": {"code": -32603, "message": str(error)}})


if __name__ == "__main__":
    main()
