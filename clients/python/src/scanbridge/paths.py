"""Where the daemon's socket is, found as the scanbridge CLI finds it (docs/protocol.md, The socket)."""

import os
import stat
from collections.abc import Mapping

from .errors import UntrustedSocket

SYSTEM_SOCKET = "/run/scanbridge/scanbridge.sock"


def resolve(
    explicit: str | None = None, environ: Mapping[str, str] | None = None, uid: int | None = None
) -> str | None:
    """The first path that applies, or None when none does (an empty variable counts as unset)."""
    env = os.environ if environ is None else environ
    if explicit:
        return explicit
    if env.get("SCANBRIDGE_SOCKET"):
        return env["SCANBRIDGE_SOCKET"]
    # A service manager may list several runtime folders; the first is the service's own.
    runtime = (env.get("RUNTIME_DIRECTORY") or "").split(":")[0]
    if runtime:
        return os.path.join(runtime, "scanbridge.sock")
    if env.get("XDG_RUNTIME_DIR"):
        return os.path.join(env["XDG_RUNTIME_DIR"], "scanbridge", "scanbridge.sock")
    return SYSTEM_SOCKET if (os.getuid() if uid is None else uid) == 0 else None


def candidates(
    explicit: str | None = None, environ: Mapping[str, str] | None = None, uid: int | None = None
) -> list[str]:
    """The sockets to try in order: the system daemon's comes after a per-user default, never after a named path."""
    env = os.environ if environ is None else environ
    path = resolve(explicit, env, uid)
    if path is None:
        return [SYSTEM_SOCKET]
    named = bool(explicit) or bool(env.get("SCANBRIDGE_SOCKET"))
    return [path] if named or path == SYSTEM_SOCKET else [path, SYSTEM_SOCKET]


def check_folder(path: str) -> None:
    """Refuses a socket whose folder every user may write in: any of them could have put a socket there."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(folder).st_mode
    except OSError:
        return  # connecting will say what is missing
    if mode & stat.S_IWOTH:
        raise UntrustedSocket(
            f"{folder} may be written by every user, so the socket {path} may not be the daemon's: "
            f"run `chmod o-w {folder}` or choose another socket"
        )
