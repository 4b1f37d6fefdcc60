import ScanBridgeClient
import Testing

/// The progress line `products import` shows on a terminal, as a pure function.
@Suite struct ImportProgressLineTests {
    @Test func aFileOfKnownSizeGetsABarPercentRateAndTimeLeft() {
        let line = ImportProgressLine(
            noun: "product", imported: 2000, skipped: 0, bytesRead: 250, totalBytes: 1000, elapsed: .seconds(10))
        // A quarter read in 10 s: 30 s to go, 200 rows a second; the bar takes what is left of 80 columns.
        let text = line.rendered(width: 80)
        #expect(text == "[########" + String(repeating: "-", count: 27) + "]  25%  2000 products  200 rows/s  0:30 left")
        #expect(text.count == 80)
        // On a wide terminal the bar stops at 40 cells.
        #expect(line.rendered(width: 200).hasPrefix("[##########" + String(repeating: "-", count: 30) + "]  25%"))
    }

    @Test func skippedRowsAndTheEndAreShown() {
        let line = ImportProgressLine(
            noun: "order", imported: 1, skipped: 2, bytesRead: 1000, totalBytes: 1000, elapsed: .seconds(3))
        let text = line.rendered(width: 200)
        #expect(text.hasPrefix("[" + String(repeating: "#", count: 40) + "] 100%"), "\(text)")
        #expect(text.hasSuffix("1 order, 2 skipped  1 rows/s  0:00 left"), "\(text)")
    }

    @Test func aPipeGetsACounterWithoutABar() {
        let line = ImportProgressLine(
            noun: "product", imported: 5000, skipped: 3, bytesRead: 123_456, totalBytes: nil, elapsed: .milliseconds(2500))
        #expect(line.rendered() == "importing: 5000 products, 3 skipped  2001 rows/s")
    }

    @Test func nothingReadYetHasNoTimeLeftAndANarrowTerminalANarrowBar() {
        let line = ImportProgressLine(
            noun: "product", imported: 0, skipped: 0, bytesRead: 0, totalBytes: 1 << 30, elapsed: .zero)
        let text = line.rendered(width: 30)
        #expect(text.hasPrefix("[----------]   0%"), "\(text)")
        #expect(text.hasSuffix("0 rows/s  --:-- left"), "\(text)")
    }

    @Test func longImportsCountInHours() {
        let line = ImportProgressLine(
            noun: "product", imported: 10, skipped: 0, bytesRead: 1, totalBytes: 3, elapsed: .seconds(3600))
        #expect(line.rendered().hasSuffix("2:00:00 left"))
    }
}
