/// Cuts a serial scanner's byte stream into reads: each ends with the scanner's suffix (CR,
/// LF, CR LF), or, for a scanner set to send none, with a pause. A pure state machine:
/// times are passed in; the reader calls `flush()` when `deadline` passes with no byte.
struct SerialFramer {
    enum Suffix: String, Sendable, CaseIterable {
        /// CR, LF or CR LF, whichever comes (the default: scanners ship with all three).
        case any
        case cr, lf, crlf
        /// No suffix: a read ends after `idle` without a byte.
        case none
    }

    struct Settings: Equatable, Sendable {
        var suffix = Suffix.any
        /// Stripped from the start of each read when there (a scanner's configured prefix).
        var prefix: [UInt8] = []
        /// A read with no suffix yet ends after this long without a byte.
        var idle: Duration = .milliseconds(100)
        var maxLength = 10_000

        init() {}
    }

    enum Output: Equatable, Sendable {
        case read([UInt8])
        /// A read over `maxLength` bytes: dropped, with its length.
        case tooLong(length: Int)
    }

    let settings: Settings
    private var pending: [UInt8] = []
    private var length = 0
    private var last: Duration?
    /// A CR ended the last read; a LF right after it is the rest of that CR LF.
    private var afterCR = false

    init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// When a read in progress ends if no byte comes first.
    var deadline: Duration? {
        guard length > 0, let last else { return nil }
        return last + settings.idle
    }

    mutating func feed(_ bytes: some Sequence<UInt8>, at time: Duration) -> [Output] {
        var outputs: [Output] = []
        if let last, length > 0, time - last > settings.idle, let out = finish() { outputs.append(out) }
        last = time
        for byte in bytes {
            let wasAfterCR = afterCR
            afterCR = false
            switch (settings.suffix, byte) {
            case (.any, 0x0D), (.cr, 0x0D):
                afterCR = true
                if let out = finish() { outputs.append(out) }
            case (.any, 0x0A), (.lf, 0x0A):
                if !(settings.suffix == .any && wasAfterCR), let out = finish() { outputs.append(out) }
            case (.crlf, 0x0A) where pending.last == 0x0D:
                pending.removeLast()
                length -= 1
                if let out = finish() { outputs.append(out) }
            default:
                length += 1
                if length <= settings.maxLength { pending.append(byte) }
            }
        }
        return outputs
    }

    /// Called when `deadline` has passed with no byte.
    mutating func flush() -> Output? {
        finish()
    }

    private mutating func finish() -> Output? {
        defer {
            pending = []
            length = 0
        }
        if length > settings.maxLength { return .tooLong(length: length) }
        var read = pending[...]
        if !settings.prefix.isEmpty, read.starts(with: settings.prefix) { read = read.dropFirst(settings.prefix.count) }
        return read.isEmpty ? nil : .read(Array(read))
    }
}
