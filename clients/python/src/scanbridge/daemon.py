"""Running a private scanbridged for tests: its own socket, database and config in one folder."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from .errors import ScanBridgeError

# A Unix socket's path holds at most 107 bytes; a test's folder can be longer than that.
_MAX_SOCKET_PATH = 100


class DaemonFailed(ScanBridgeError):
    """The daemon did not start, or did not stop cleanly; the message ends with its log's last lines."""


def time_scale() -> float:
    """SCANBRIDGE_TEST_TIME_SCALE (docs/testing.md): deadlines stretch for a slow machine, never shrink."""
    try:
        return max(1.0, float(os.environ.get("SCANBRIDGE_TEST_TIME_SCALE", "1")))
    except ValueError:
        return 1.0


class Daemon:
    """`scanbridged --drivers mock` with mock devices, its files in `folder`, restartable on the same database."""

    def __init__(
        self, executable: str, folder: Path, *, mocks: tuple[str, ...] = (), http: bool | str = False, config: str = "",
        arguments: tuple[str, ...] = (),
    ):
        self.executable = executable
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.database = self.folder / "scanbridge.sqlite"
        self.config = self.folder / "scanbridge.yaml"
        self.log_path = self.folder / "scanbridged.log"
        # The daemon refuses a socket folder others may write in, and the client one every user may.
        self._socket_folder = self.folder
        if len(str(self.folder / "scanbridge.sock")) > _MAX_SOCKET_PATH:
            self._socket_folder = Path(tempfile.mkdtemp(prefix="scanbridge-"))
        self.socket_path = str(self._socket_folder / "scanbridge.sock")
        self._notify_path = str(self._socket_folder / "notify.sock")
        self.config.write_text(config)  # also keeps /etc/scanbridge/scanbridge.yaml out
        self._arguments = ["--drivers", "mock"] + [f"--mock={mock}" for mock in mocks]
        # True takes a free port, which changes at each start; an ADDRESS:PORT keeps it across restarts.
        self._arguments += ["--http", "127.0.0.1:0" if http is True else http] if http else []
        self._arguments += list(arguments)
        self.http_addresses: list[str] = []
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 20.0) -> None:
        """Starts the daemon and returns once it said READY=1 (its socket and gateway are bound)."""
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            if os.path.exists(self._notify_path):
                os.unlink(self._notify_path)
            notify.bind(self._notify_path)
            command = [self.executable, "--socket", self.socket_path, "--database", str(self.database),
                       "--config", str(self.config), *self._arguments]
            with open(self.log_path, "ab") as log:
                log.write(f"== {' '.join(command)}\n".encode())
                log.flush()
                environment = {**os.environ, "NOTIFY_SOCKET": self._notify_path}
                self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                                env=environment)
            self.http_addresses = self._wait_ready(notify, time.monotonic() + timeout * time_scale())
        finally:
            notify.close()
            if os.path.exists(self._notify_path):
                os.unlink(self._notify_path)

    def _wait_ready(self, notify: socket.socket, deadline: float) -> list[str]:
        assert self.process is not None
        while True:
            if self.process.poll() is not None:
                raise DaemonFailed(f"scanbridged exited with status {self.process.returncode} before it was ready"
                                   + self._log_tail())
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise DaemonFailed("scanbridged did not say READY=1 in time" + self._log_tail())
            notify.settimeout(min(0.2, remaining))
            try:
                message = notify.recv(4096).decode("utf-8", "replace")
            except socket.timeout:
                continue
            lines = message.splitlines()
            if "READY=1" in lines:
                return [line.split("=", 1)[1] for line in lines if line.startswith("SCANBRIDGE_HTTP=")]

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then checks what a clean stop leaves: status 0 and no socket file."""
        if not self.running:
            return
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout * time_scale())
        except subprocess.TimeoutExpired:
            self.kill()
            raise DaemonFailed(f"scanbridged did not stop within {timeout} s of SIGTERM" + self._log_tail())
        if status != 0:
            raise DaemonFailed(f"scanbridged exited with status {status} after SIGTERM" + self._log_tail())
        if os.path.exists(self.socket_path):
            raise DaemonFailed(f"scanbridged left its socket {self.socket_path} behind" + self._log_tail())

    def kill(self) -> None:
        """SIGKILL, as a crash or a power cut would stop it: the socket file stays, the journal is kept."""
        if self.running:
            assert self.process is not None
            self.process.kill()
            self.process.wait()

    def remove(self) -> None:
        """Kills the daemon if it runs and removes the short socket folder, if one was made."""
        self.kill()
        if self._socket_folder != self.folder:
            shutil.rmtree(self._socket_folder, ignore_errors=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _log_tail(self, lines: int = 20) -> str:
        return "; its log ends:\n" + "\n".join(self.log().splitlines()[-lines:])
