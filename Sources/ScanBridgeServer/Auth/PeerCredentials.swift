import Foundation

/// Who is at the other end of a connection, as the kernel says (SO_PEERCRED).
package struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    package var pid: Int32
    package var uid: UInt32
    package var gid: UInt32

    package init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    package var description: String { "pid \(pid) uid \(uid) gid \(gid)" }

    /// The peer's groups: its primary group and the supplementary groups the kernel
    /// holds for its process (from /proc, so no user database lookup is needed).
    /// Reads a file: call it off the event loops and the cooperative pool.
    package func groups() -> Set<UInt32> {
        var groups: Set<UInt32> = [gid]
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Groups:") })
        {
            for field in line.dropFirst("Groups:".count).split(whereSeparator: \.isWhitespace) {
                if let gid = UInt32(field) { groups.insert(gid) }
            }
        }
        return groups
    }
}
