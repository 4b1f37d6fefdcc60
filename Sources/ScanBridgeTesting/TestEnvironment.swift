import Foundation

/// What the test run is asked for through its environment.
package enum TestEnvironment {
    /// `CI=true`: a suite that needs a part this machine lacks (QEMU, Chromium, PostgreSQL,
    /// pcscd…) runs anyway and fails naming the part, so that a CI machine missing one cannot
    /// pass by skipping what it could not test. Elsewhere such a suite is skipped with the reason.
    package static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Whether a suite that needs a part runs, given why the part is missing (nil: it is
    /// there). The suite's first use of the part throws that reason when it runs without it.
    package static func runs(unless missing: String?) -> Bool { missing == nil || isCI }

    /// `SCANBRIDGE_TEST_TIME_SCALE`: every wait's deadline times this, for a slow machine or a
    /// sanitized build. A deadline ends a test that cannot go on; it never measures one.
    package static let timeScale: Double = {
        guard let text = ProcessInfo.processInfo.environment["SCANBRIDGE_TEST_TIME_SCALE"], let scale = Double(text),
            scale >= 1
        else { return 1 }
        return scale
    }()

    /// `timeout` stretched by `timeScale`.
    package static func scaled(_ timeout: Duration) -> Duration { timeout * timeScale }
}
