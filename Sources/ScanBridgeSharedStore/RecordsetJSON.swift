import Foundation

/// Rows as one JSON array for `jsonb_to_recordset`, whose column names are the properties'
/// in snake case: a page of rows is one statement and one round trip, whatever its size.
enum RecordsetJSON {
    static func encode(_ rows: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }
}
