/// An import's progress as one line for a terminal: a bar with its percentage, the rate and
/// the time left when the input's size is known (a regular file, by the bytes read so far),
/// else a plain count with the rate (a pipe). A pure function of its fields, so it is tested
/// without a terminal; `scanbridge products import` shows it on standard error.
public struct ImportProgressLine: Sendable, Hashable {
    /// What the rows are, in the singular: `product`, `order`.
    public var noun: String
    /// Rows answered so far: imported and skipped.
    public var imported: Int
    public var skipped: Int
    /// Bytes of the input read so far.
    public var bytesRead: Int64
    /// The input's size; nil when it cannot be known (standard input from a pipe).
    public var totalBytes: Int64?
    /// Time since the import started.
    public var elapsed: Duration

    public init(noun: String, imported: Int, skipped: Int, bytesRead: Int64, totalBytes: Int64?, elapsed: Duration) {
        self.noun = noun
        self.imported = imported
        self.skipped = skipped
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
        self.elapsed = elapsed
    }

    /// The line, at most `width` characters when the terminal is that wide (the bar shrinks
    /// first, down to 10 cells).
    public func rendered(width: Int = 80) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rows = imported + skipped
        let rate = seconds > 0 ? Int((Double(rows) / seconds).rounded()) : 0
        var counts = "\(imported) \(noun)\(imported == 1 ? "" : "s")"
        if skipped > 0 { counts += ", \(skipped) skipped" }
        counts += "  \(rate) rows/s"
        guard let totalBytes, totalBytes > 0 else { return "importing: " + counts }
        let fraction = min(1, max(0, Double(bytesRead) / Double(totalBytes)))
        let percent = Int((fraction * 100).rounded(.down))
        let left: String
        if fraction >= 1 {
            left = "0:00 left"
        } else if fraction > 0, seconds > 0 {
            left = Self.clock(seconds * (1 - fraction) / fraction) + " left"
        } else {
            left = "--:-- left"
        }
        let tail = " \(String(repeating: " ", count: max(0, 3 - String(percent).count)))\(percent)%  \(counts)  \(left)"
        let cells = min(40, max(10, width - tail.count - 2))
        let filled = Int((fraction * Double(cells)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled) + "]" + tail
    }

    /// `seconds` as m:ss, or h:mm:ss from an hour on.
    static func clock(_ seconds: Double) -> String {
        let total = Int(min(seconds, 359_999).rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }
}
