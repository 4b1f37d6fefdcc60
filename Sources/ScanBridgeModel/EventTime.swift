public import Foundation

/// RFC 3339 UTC times with millisecond precision, the protocol's time format.
public enum EventTime {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// `2026-11-21T09:40:00.123Z`. Written by hand: every event is stamped, and the
    /// general-purpose formatter would cost more than the rest of the event's encoding.
    public static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var out = [UInt8]()
        out.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var value = value
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                value %= divisor
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1900, 4)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        out.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        out.append(UInt8(ascii: "."))
        digits(fraction, 3)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    public static func parse(_ text: String) -> Date? {
        if let date = try? style.parse(text) { return date }
        return try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text)
    }
}

extension Int64 {
    /// Division rounding toward minus infinity (times before 1970 keep a positive fraction).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
