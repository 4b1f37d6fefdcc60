package import Foundation
import ScanBridgeModel
import ScanBridgeRPC

/// A folder the daemon keeps a file in (its socket, its database). Whoever may write in a
/// folder may replace the files in it, so the daemon creates the folder with its own mode
/// and group, and refuses one that exists and that another user could write in.
package enum DaemonFolder {
    /// Creates `path` with `mode` and `group` (the daemon's own group when nil), its missing
    /// parents private to the daemon's user; or checks the folder that is there: it must be
    /// the daemon user's or root's, writable by no other user, and by its group only when
    /// that is the daemon's own. `holding` names the file it is for, in a refusal.
    /// Blocking file system calls: run it off the cooperative pool and the event loops.
    package static func prepare(_ path: String, mode: mode_t, group: gid_t?, holding what: String) throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        if mkdir(path, 0o700) == 0 {
            try restrict(path, mode: mode, group: group ?? getegid())
        } else if errno != EEXIST {
            throw failure("cannot create the \(what) folder \(path)")
        }
        if let refusal = refusal(of: path, holding: what) { throw ScanBridgeError.unavailable(refusal) }
    }

    /// Why the folder at `path` is not safe for the daemon's `what`, or nil when it is.
    package static func refusal(of path: String, holding what: String) -> String? {
        guard let access = FolderAccess(path: path) else {
            return "the \(what) folder \(path) is not a folder; remove it or choose another path"
        }
        let (user, group) = (geteuid(), getegid())
        if access.owner != user && access.owner != 0 {
            return """
                the \(what) folder \(path) belongs to uid \(access.owner), not to this daemon's user (uid \(user)) \
                or root, so that user could replace the \(what); `chown \(user) \(path)`, or remove the folder and \
                let the daemon create it
                """
        }
        if access.writableByEveryone {
            return """
                the \(what) folder \(path) is writable by every user (mode \(access.modeText)), so any user could \
                replace the \(what); `chmod o-w \(path)`, or choose another folder
                """
        }
        if access.mode & 0o020 != 0 && access.group != group {
            return """
                the \(what) folder \(path) is writable by group \(access.group), which is not this daemon's group \
                (\(group)), so its members could replace the \(what); `chmod g-w \(path)`
                """
        }
        return nil
    }

    /// Gives the folder just created its group and mode through a descriptor, not its path,
    /// so nothing put in its place meanwhile is changed instead.
    private static func restrict(_ path: String, mode: mode_t, group: gid_t) throws {
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { throw failure("cannot open the folder \(path) it created") }
        defer { close(folder) }
        // chown before chmod: giving a file away clears its setgid bit.
        guard fchown(folder, UInt32.max, group) == 0 else {
            throw failure("cannot give the folder \(path) to group \(group) (is the daemon's user a member?)")
        }
        guard fchmod(folder, mode) == 0 else { throw failure("cannot set the mode of the folder \(path)") }
    }

    private static func failure(_ what: String) -> ScanBridgeError {
        .unavailable("\(what): \(String(cString: strerror(errno)))")
    }
}
