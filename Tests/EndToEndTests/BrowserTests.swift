import ScanBridgeTesting
import Testing

/// Every test that drives Chromium, one at a time: a browser starting takes a core, and
/// several at once on a small machine would starve the rest of the suite running beside
/// them. Skipped, with the reason, where Chromium is not installed.
@Suite(
    "In a real browser", .serialized, .heavy,
    .enabled(if: TestEnvironment.runs(unless: Chromium.unavailableReason), Comment(rawValue: Chromium.unavailableReason ?? "")))
enum BrowserTests {}
