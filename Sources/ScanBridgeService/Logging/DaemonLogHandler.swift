import Foundation
package import Logging
import ScanBridgeModel
import ScanBridgeRPC
import Synchronization

/// The daemon's log lines on standard error. Under journald (`JOURNAL_STREAM` names standard
/// error) each line starts with its syslog priority (`<4>` for a warning…), which journald
/// takes as the entry's priority, and carries no timestamp of its own: journald stamps every
/// entry. `log_format: json` writes one JSON object a line.
package struct DaemonLogHandler: LogHandler {
    package enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    let label: String
    let format: Format
    let journald: Bool
    let write: @Sendable ([UInt8]) -> Void

    package init(
        label: String, format: Format, journald: Bool, write: @escaping @Sendable ([UInt8]) -> Void = Self.standardError
    ) {
        self.label = label
        self.format = format
        self.journald = journald
        self.write = write
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let (level, message, source) = (event.level, event.message, event.source)
        var all = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        if let error = event.error { all["error"] = "\(error)" }
        var bytes: [UInt8] = journald ? Array("<\(Self.priority(of: level))>".utf8) : []
        switch format {
        case .text:
            var text = journald ? "" : Self.timestamp() + " "
            text += "\(level) \(label) :"
            for (key, value) in all.sorted(by: { $0.key < $1.key }) { text += " \(key)=\(Self.field("\(value)", escaped: true))" }
            text += " [\(source)] \(Self.field(message.description, escaped: true))"
            bytes += Array(text.utf8)
        case .json:
            // JSON escapes control characters itself.
            var json = JSONOutput()
            json.beginObject()
            if !journald { json.member("time", Self.timestamp()) }
            json.member("level", level.rawValue)
            json.member("label", label)
            json.member("source", source)
            json.member("message", Self.field(message.description, escaped: false))
            for (key, value) in all.sorted(by: { $0.key < $1.key }) {
                json.member(key, Self.field(value.description, escaped: false))
            }
            json.endObject()
            bytes += json.bytes
        }
        write(bytes + [0x0A])
    }

    /// The most a message or a metadata value takes of a line: journald splits a longer
    /// line (its LineMax) into entries of their own, each read for a priority prefix.
    static let maxFieldBytes = 2048

    /// `text` fit for one line that a client's or a device's bytes cannot forge another in:
    /// cut to `maxFieldBytes`, and, as text, every control character (a line break, a NUL,
    /// which journald also splits at, an escape sequence) written as `\xNN`.
    static func field(_ text: String, escaped: Bool) -> String {
        var kept = Substring(text)
        if text.utf8.count > maxFieldBytes {
            var end = text.utf8.index(text.utf8.startIndex, offsetBy: maxFieldBytes)
            while end.samePosition(in: text.unicodeScalars) == nil { end = text.utf8.index(before: end) }
            kept = text[..<end]
        }
        var result = escaped ? "" : String(kept)
        if escaped {
            for scalar in kept.unicodeScalars {
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return kept.endIndex < text.endIndex ? result + "…(\(text.utf8.count - kept.utf8.count) bytes more)" : result
    }

    /// syslog(3)'s priority: what `journalctl -p` filters on.
    package static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Whether standard error is the journald stream systemd connected (`JOURNAL_STREAM`
    /// holds its device and inode), not a terminal or file it was redirected to since.
    package static func standardErrorIsJournal(environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return stream == "\(status.st_dev):\(status.st_ino)"
    }

    /// One line a write, so lines from several threads never interleave.
    package static let standardError: @Sendable ([UInt8]) -> Void = { DescriptorOutput.writeAll($0, to: STDERR_FILENO) }

    private static func timestamp() -> String {
        var now = timeval()
        gettimeofday(&now, nil)
        var time = now.tv_sec
        var parts = tm()
        localtime_r(&time, &parts)
        var buffer = [Int8](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
