/// How an import file is written.
public enum ImportFormat: String, Sendable, Hashable, CaseIterable {
    /// RFC 4180 CSV with a header row naming the columns.
    case csv
    /// One JSON array of objects, or JSON Lines (one object per line).
    case json

    /// The format a file name's extension says: `.csv`; `.json`, `.jsonl`, `.ndjson`.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "csv": self = .csv
        case "json", "jsonl", "ndjson": self = .json
        default: return nil
        }
    }
}
