import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process that serves a socket, as the kernel says (`SO_PEERCRED` of a connection to
/// it), and what `/proc` tells of it: its groups, and the files it has open when this user may
/// look (its own user, or root). For `scanbridge doctor`; every call blocks.
struct DaemonProcess {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
    /// Its supplementary groups; empty when `/proc` cannot say.
    var groups: [UInt32]
    /// The paths of its open files; nil when this user may not see them.
    var openFiles: [String]?

    /// The daemon behind `socketPath`; nil when nothing accepts a connection there.
    static func serving(_ socketPath: String) -> DaemonProcess? {
        guard let credentials = peerCredentials(socketPath) else { return nil }
        let status = (try? String(contentsOfFile: "/proc/\(credentials.pid)/status", encoding: .utf8)) ?? ""
        let groupsLine = status.split(separator: "\n").first { $0.hasPrefix("Groups:") }?.dropFirst("Groups:".count) ?? ""
        let groups = groupsLine.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { UInt32($0) }
        let folder = "/proc/\(credentials.pid)/fd"
        let openFiles = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)
        }
        return DaemonProcess(
            pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, groups: groups, openFiles: openFiles)
    }

    /// Whether the process is in the group `gid`: its own, or a supplementary one.
    func isMember(of gid: UInt32) -> Bool { self.gid == gid || groups.contains(gid) }

    /// The database it has open: a file open with its `-wal` beside it (SQLite keeps both open
    /// in WAL mode); nil when its files cannot be seen.
    var database: String? {
        guard let openFiles else { return nil }
        let open = Set(openFiles)
        return openFiles.sorted().first { !$0.hasSuffix("-wal") && open.contains($0 + "-wal") }
    }

    /// The user's name, else its number.
    static func userName(_ uid: UInt32) -> String {
        guard let entry = getpwuid(uid) else { return "uid \(uid)" }
        return String(cString: entry.pointee.pw_name)
    }

    /// `struct ucred` from <sys/socket.h>, which Glibc's Swift module hides behind _GNU_SOURCE:
    /// the same three 32-bit fields in the same order.
    private struct Credentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    private static func peerCredentials(_ path: String) -> Credentials? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { return nil }
        var credentials = Credentials()
        var length = socklen_t(MemoryLayout<Credentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return credentials
    }
}
