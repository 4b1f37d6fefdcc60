import Foundation

/// Rows as one JSON array for `jsonb_to_recordset`, whose column names are the properties'
/// in snake case: a page of rows is one statement and one round trip, whatever its size.
enum RecordsetJSON {
    static func encode(_ rows: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }

    /// A time as the counters keep it: whole milliseconds since 1970.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}

extension Array {
    /// The last element of each id, in the order of those last ones: a batch given to one
    /// `INSERT … ON CONFLICT DO UPDATE`, which may not touch a row twice, with the last of
    /// an id winning as it does in a counter's own database.
    func lastOfEach(_ id: (Element) -> String) -> [Element] {
        var seen = Set<String>()
        return reversed().filter { seen.insert(id($0)).inserted }.reversed()
    }
}
