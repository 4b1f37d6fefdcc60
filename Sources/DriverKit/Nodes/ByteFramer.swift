/// Cuts a scanner's byte stream (a serial line, a USB endpoint) into reads: each ends with
/// the scanner's suffix (CR, LF, CR LF), or, for a scanner set to send none, with a pause.
/// A pure state machine: times are passed in; the reader calls `flush()` when `deadline`
/// passes with no byte.
package struct ByteFramer {
    package enum Suffix: String, Sendable, CaseIterable {
        /// CR, LF or CR LF, whichever comes (the default: scanners ship with all three).
        case any
        case cr, lf, crlf
        /// No suffix: a read ends after `idle` without a byte.
        case none
    }

    package struct Settings: Equatable, Sendable {
        package var suffix = Suffix.any
        /// Stripped from the start of each read when there (a scanner's configured prefix).
        package var prefix: [UInt8] = []
        /// A read with no suffix yet ends after this long without a byte.
        package var idle: Duration = .milliseconds(100)
        package var maxLength = 10_000

        /// The names of the settings `init(_:)` reads, for a driver's list of known ones.
        package static let names = ["suffix", "idle", "prefix"]

        package init() {}

        /// `suffix`, `idle` and `prefix` as a `--device` gives them, the defaults for those not given.
        package init(_ given: DeviceSettings) throws(DeviceSettingError) {
            idle = try given.milliseconds("idle", default: idle)
            if let suffix = given["suffix"] {
                guard let value = Suffix(rawValue: suffix) else {
                    throw DeviceSettingError(
                        "suffix takes \(Suffix.allCases.map(\.rawValue).joined(separator: ", ")), not '\(suffix)'")
                }
                self.suffix = value
            }
            prefix = Array((given["prefix"] ?? "").utf8)
        }
    }

    package enum Output: Equatable, Sendable {
        case read([UInt8])
        /// A read over `maxLength` bytes: dropped, with its length.
        case tooLong(length: Int)
    }

    package let settings: Settings
    private var pending: [UInt8] = []
    private var length = 0
    private var last: Duration?
    /// A CR ended the last read; a LF right after it is the rest of that CR LF.
    private var afterCR = false

    package init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// When a read in progress ends if no byte comes first.
    package var deadline: Duration? {
        guard length > 0, let last else { return nil }
        return last + settings.idle
    }

    package mutating func feed(_ bytes: some Sequence<UInt8>, at time: Duration) -> [Output] {
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
    package mutating func flush() -> Output? {
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
