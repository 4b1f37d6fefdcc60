"""The `scanbridge` fixture (registered through the `pytest11` entry point).

    def test_checkout(scanbridge):
        event = scanbridge.inject("till-1", "5901234123457")
        assert event.resolution.status == "not_found"

Each test gets its own daemon (`--drivers mock`, mock devices `till-1`, `counter-reader` and
`bench-camera`), its socket and database in the test's tmp_path. Mark a test to change that:
`@pytest.mark.scanbridge(mocks=["barcode:till-1"], http=True, config="catalog:\\n  currency: EUR\\n")`
(`http="127.0.0.1:PORT"` keeps the gateway's port across `restart()`).
The daemon is SCANBRIDGE_DAEMON, else scanbridged on PATH; without one the test is skipped,
or fails under CI=true, where a missing part must not pass for a tested one.
"""

import os

import pytest

from .harness import DEFAULT_MOCKS, Harness, find_executable


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "scanbridge(mocks=[...], http=False|True|'ADDRESS:PORT', config=''): how the scanbridge fixture starts its daemon",
    )


def _missing(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} (CI=true: a missing part fails the test instead of skipping it)")
    pytest.skip(what)


@pytest.fixture
def scanbridge(request: pytest.FixtureRequest, tmp_path) -> Harness:
    """A private scanbridged with mock devices; stopped with SIGTERM, and its exit checked, after the test."""
    executable = find_executable("SCANBRIDGE_DAEMON", "scanbridged")
    if executable is None:
        _missing("no scanbridged: set SCANBRIDGE_DAEMON or put it on PATH")
    marker = request.node.get_closest_marker("scanbridge")
    options = dict(marker.kwargs) if marker else {}
    harness = Harness(
        executable, tmp_path / "scanbridge", mocks=tuple(options.pop("mocks", DEFAULT_MOCKS)),
        cli=find_executable("SCANBRIDGE_CLI", "scanbridge"), **options,
    )
    yield harness
    harness.close()
