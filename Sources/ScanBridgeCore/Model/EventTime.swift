import Foundation

/// RFC 3339 UTC times with millisecond precision, the protocol's time format.
public enum EventTime {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// `2026-11-21T09:40:00.123Z`
    public static func format(_ date: Date) -> String {
        style.format(date)
    }

    public static func parse(_ text: String) -> Date? {
        if let date = try? style.parse(text) { return date }
        return try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text)
    }
}
