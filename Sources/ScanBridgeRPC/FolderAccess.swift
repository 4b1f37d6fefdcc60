import Foundation

/// Who may change what is in a folder, from its owner, group and mode: what the daemon
/// checks of its socket and database folders and a client of the socket's folder, before
/// either trusts a file in it (whoever may write in a folder may replace its files).
public struct FolderAccess: Sendable, Hashable {
    public var owner: UInt32
    public var group: UInt32
    /// The permission bits, with the setuid, setgid and sticky bits.
    public var mode: UInt32

    /// The folder at `path` (links followed); nil when there is none. Reads the file
    /// system: call it off the cooperative pool and the event loops.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        owner = info.st_uid
        group = info.st_gid
        mode = UInt32(info.st_mode) & 0o7777
    }

    /// Every user may create, rename and remove files in it.
    public var writableByEveryone: Bool { mode & 0o002 != 0 }

    /// The mode as `ls` and `chmod` write it, e.g. `0750`.
    public var modeText: String { "0" + String(mode, radix: 8) }

    /// Why a client does not trust a socket in `folder`, or nil when it may.
    public static func clientRefusal(socketPath: String) -> String? {
        let folder = URL(fileURLWithPath: socketPath).deletingLastPathComponent().path
        guard let access = FolderAccess(path: folder), access.writableByEveryone else { return nil }
        return """
            refusing to connect to \(socketPath): its folder \(folder) is writable by every user (mode \
            \(access.modeText)), so any user could have put a socket of their own there; use a socket in a folder \
            that others cannot write (`chmod o-w \(folder)`, or the daemon's --socket path)
            """
    }
}
