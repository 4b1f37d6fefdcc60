"""Finding the socket as the CLI does, refusing an untrusted one, and the back-off's bounds."""

import os
import random
import socket

import pytest

import scanbridge as sb
from scanbridge import paths


def test_the_socket_is_found_as_the_cli_finds_it():
    assert paths.resolve("/x.sock", {"SCANBRIDGE_SOCKET": "/y.sock"}) == "/x.sock"
    assert paths.resolve(None, {"SCANBRIDGE_SOCKET": "/y.sock", "XDG_RUNTIME_DIR": "/run/user/1"}) == "/y.sock"
    runtime = {"SCANBRIDGE_SOCKET": "", "RUNTIME_DIRECTORY": "/run/a:/run/b"}  # empty is unset; the first folder
    assert paths.resolve(None, runtime) == "/run/a/scanbridge.sock"
    assert paths.resolve(None, {"XDG_RUNTIME_DIR": "/run/user/1"}, uid=1) == "/run/user/1/scanbridge/scanbridge.sock"
    assert paths.resolve(None, {}, uid=0) == "/run/scanbridge/scanbridge.sock"
    assert paths.resolve(None, {}, uid=1000) is None


def test_the_system_socket_is_tried_after_a_per_user_default_only():
    per_user = {"XDG_RUNTIME_DIR": "/run/user/1"}
    assert paths.candidates(None, per_user, uid=1) == ["/run/user/1/scanbridge/scanbridge.sock", paths.SYSTEM_SOCKET]
    assert paths.candidates(None, {**per_user, "SCANBRIDGE_SOCKET": "/y.sock"}, uid=1) == ["/y.sock"]
    assert paths.candidates(None, {}, uid=1000) == [paths.SYSTEM_SOCKET]


def test_a_socket_in_a_folder_every_user_may_write_is_refused(tmp_path):
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, 0o777)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(folder / "s.sock"))
        listener.listen()
        with pytest.raises(sb.UntrustedSocket, match="chmod o-w"):
            sb.Client(str(folder / "s.sock"))


def test_the_back_off_grows_to_its_bound_with_jitter_and_gives_up():
    backoff = sb.Backoff(initial=0.2, maximum=5.0, give_up_after=60.0, rng=random.Random(7))
    delays = list(backoff.delays())

    ceilings = [min(5.0, 0.2 * 2**n) for n in range(len(delays))]
    assert all(ceiling / 2 <= delay <= ceiling for delay, ceiling in zip(delays[:-1], ceilings))
    assert len(set(delays)) == len(delays)  # drawn, not fixed
    assert sum(delays) == pytest.approx(60.0)
    assert max(delays) <= 5.0
