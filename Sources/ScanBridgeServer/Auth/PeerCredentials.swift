import Foundation

/// Who is at the other end of a connection, as the kernel recorded it when the peer
/// connected (SO_PEERCRED, SO_PEERGROUPS).
package struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    package var pid: Int32
    package var uid: UInt32
    package var gid: UInt32
    /// The primary group and the supplementary ones.
    package var groups: Set<UInt32>

    package init(pid: Int32, uid: UInt32, gid: UInt32, supplementaryGroups: Set<UInt32> = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = supplementaryGroups.union([gid])
    }

    package var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}
