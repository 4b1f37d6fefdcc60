import Foundation
import ScanBridgeModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The daemon's database on disk: where it is, who may read it and the room left beside it
/// (the size of its write-ahead log is the journal's line, as the daemon measures it).
extension DoctorReport {
    /// Less room than this beside the database is a problem: the journal stops being written.
    static let lowDiskBytes: Int64 = 64 * 1024 * 1024

    struct Database {
        var path: String
        /// Its mode and its folder's; nil when they cannot be read.
        var mode: UInt32?
        var folderMode: UInt32?
        /// The bytes an unprivileged write may still use on its file system.
        var freeBytes: Int64?
    }

    /// Looks at the database at `path`. Blocks.
    static func database(at path: String) -> Database {
        func mode(_ path: String) -> UInt32? {
            var status = stat()
            return stat(path, &status) == 0 ? UInt32(status.st_mode) & 0o7777 : nil
        }
        let folder = (path as NSString).deletingLastPathComponent
        var database = Database(path: path, mode: mode(path), folderMode: mode(folder.isEmpty ? "." : folder))
        var volume = statvfs()
        if statvfs(folder.isEmpty ? "." : folder, &volume) == 0 {
            database.freeBytes = Int64(volume.f_bavail) * Int64(volume.f_frsize)
        }
        return database
    }

    var databaseProblems: [String] {
        guard let database else { return [] }
        var problems: [String] = []
        guard let mode = database.mode else {
            return [
                "the database \(database.path) cannot be looked at by this user; run the doctor as root or as the daemon's user"
            ]
        }
        if mode & 0o007 != 0 {
            problems.append(
                "the database \(database.path) is open to every user (mode \(Self.octal(mode))) and holds customers and cards: chmod o-rwx \(database.path)"
            )
        }
        let folder = (database.path as NSString).deletingLastPathComponent
        if let folderMode = database.folderMode, folderMode & 0o002 != 0 {
            problems.append(
                "every user may write in the database's folder \(folder) (mode \(Self.octal(folderMode))): chmod o-w \(folder)")
        }
        if let free = database.freeBytes, free < Self.lowDiskBytes {
            problems.append(
                "only \(Self.mebibytes(free)) free beside the database, in \(folder): free some room, or scans stop being journaled"
            )
        }
        return problems
    }

    var databaseLine: String {
        guard let database else {
            return row(
                "database", "cannot tell which file the daemon uses (another user's daemon): run as root, or give --database")
        }
        guard let mode = database.mode else { return row("database", "\(database.path) cannot be looked at by this user") }
        var parts = ["\(database.path) mode \(Self.octal(mode))"]
        if let free = database.freeBytes { parts.append("\(Self.mebibytes(free)) free") }
        return row("database", parts.joined(separator: "; "))
    }

    var databaseJSON: JSONValue {
        guard let database else { return .null }
        func number(_ value: Int64?) -> JSONValue { value.map { .int($0) } ?? .null }
        return .object([
            "path": .string(database.path), "mode": database.mode.map { .string(Self.octal($0)) } ?? .null,
            "folderMode": database.folderMode.map { .string(Self.octal($0)) } ?? .null,
            "freeBytes": number(database.freeBytes),
        ])
    }

    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func mebibytes(_ bytes: Int64) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
