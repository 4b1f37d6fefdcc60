import ScanBridgeClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An import's progress on standard error (`ImportProgressLine`): a bar when the input's size
/// is known, a counter otherwise; a few times a second at most, and only on a terminal and
/// without --json. A skipped row's line replaces it rather than mixing with it.
actor ImportProgress {
    private let noun: String
    private let bytesRead: CountedChunks<FileChunks>.Counter
    private let totalBytes: Int64?
    private let isShown: Bool
    private let started = ContinuousClock.now
    private var lastShown: ContinuousClock.Instant?
    /// The length of the line on screen, for the next to wipe; 0: none.
    private var shownLength = 0

    init(noun: String, bytesRead: CountedChunks<FileChunks>.Counter, totalBytes: Int64?, showing: Bool) {
        self.noun = noun
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
        self.isShown = showing && isatty(STDERR_FILENO) == 1
    }

    func update(_ summary: ImportSummary) async {
        guard isShown else { return }
        let now = ContinuousClock.now
        if let lastShown, now - lastShown < .milliseconds(250) { return }
        lastShown = now
        let line = ImportProgressLine(
            noun: noun, imported: summary.imported, skipped: summary.skipped, bytesRead: bytesRead.value,
            totalBytes: totalBytes, elapsed: now - started
        ).rendered(width: Self.columns() - 1)
        await Console.status(line, erasing: shownLength)
        shownLength = line.count
    }

    func problem(_ line: String) async {
        await end()
        await Console.error(line)
    }

    /// Takes the progress line away.
    func end() async {
        guard shownLength > 0 else { return }
        await Console.status("", erasing: shownLength)
        shownLength = 0
    }

    /// The terminal's width on standard error; 80 when it cannot say.
    private static func columns() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// The size of the file at `path` when it is a regular file; nil for a FIFO, a device…
    static func regularFileSize(path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return size(status)
    }

    /// The size of what `descriptor` reads when it is a regular file (`< catalog.csv`).
    static func regularFileSize(descriptor: Int32) -> Int64? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return size(status)
    }

    private static func size(_ status: stat) -> Int64? {
        status.st_mode & S_IFMT == S_IFREG ? Int64(status.st_size) : nil
    }
}
