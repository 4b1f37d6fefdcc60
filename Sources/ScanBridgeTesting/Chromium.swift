package import Foundation

/// Debian's headless Chromium and its WebDriver server, as the browser tests use them
/// (`apt-get install chromium chromium-driver`; scripts/deps.sh installs them).
package enum Chromium {
    package static let browser = URL(fileURLWithPath: "/usr/bin/chromium")
    package static let driver = URL(fileURLWithPath: "/usr/bin/chromedriver")

    /// Why the browser tests cannot run here, or nil when they can: a test skips with this
    /// reason rather than failing where the packages could not be installed.
    package static var unavailableReason: String? {
        let missing = [browser, driver].filter { !FileManager.default.isExecutableFile(atPath: $0.path) }
        guard !missing.isEmpty else { return nil }
        return "no \(missing.map(\.path).joined(separator: " or ")): "
            + "install Debian's chromium and chromium-driver (scripts/deps.sh does) to run the browser tests"
    }
}
