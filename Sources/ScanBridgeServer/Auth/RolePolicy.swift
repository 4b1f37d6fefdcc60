import Foundation
package import ScanBridgeRPC

/// Maps a peer to its role: root and the daemon's own user are admins; members of the
/// configured groups get the role of their highest group; everyone else is refused.
package struct RolePolicy: Sendable, Hashable {
    package var adminGroups: [UInt32]
    package var operatorGroups: [UInt32]
    package var readerGroups: [UInt32]
    package var daemonUID: UInt32

    package init(
        adminGroups: [UInt32] = [], operatorGroups: [UInt32] = [], readerGroups: [UInt32] = [],
        daemonUID: UInt32 = getuid()
    ) {
        self.adminGroups = adminGroups
        self.operatorGroups = operatorGroups
        self.readerGroups = readerGroups
        self.daemonUID = daemonUID
    }

    /// The role for a peer; nil means refused.
    package func role(for peer: PeerCredentials) -> Role? {
        if peer.uid == 0 || peer.uid == daemonUID { return .admin }
        let groups = peer.groups
        if adminGroups.contains(where: groups.contains) { return .admin }
        if operatorGroups.contains(where: groups.contains) { return .operator }
        if readerGroups.contains(where: groups.contains) { return .reader }
        return nil
    }

    /// The gid of a group name, or nil when the system has no such group.
    package static func groupID(named name: String) -> UInt32? {
        if let gid = UInt32(name) { return gid }
        guard let entry = getgrnam(name) else { return nil }
        return entry.pointee.gr_gid
    }
}
