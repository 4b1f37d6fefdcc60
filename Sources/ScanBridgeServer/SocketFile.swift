import CSocketBind
import Foundation
import NIOCore
import NIOPosix
import ScanBridgeCore
import ScanBridgeModel

/// The socket file's life: a folder no other user can write in, a stale socket reclaimed,
/// no start over a live daemon, the file created with its mode and group, removed at exit.
enum SocketFile {
    /// Makes `path` free to bind: creates or checks its folder (`DaemonFolder`), removes a
    /// socket left by a dead daemon, and refuses when a live daemon answers there or the
    /// path is not a socket.
    static func prepare(_ path: String, group: UInt32?) async throws {
        // File system calls block: they run on NIO's thread pool, not the cooperative pool.
        let exists = try await NIOThreadPool.singleton.runIfActive {
            // The folder lets the socket's group in (setgid: the socket takes the folder's
            // group even when the daemon may not give its own files that group).
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try DaemonFolder.prepare(folder, mode: group == nil ? 0o750 : 0o2750, group: group, holding: "socket")
            var info = stat()
            guard lstat(path, &info) == 0 else { return false }
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw ScanBridgeError.unavailable("\(path) exists and is not a socket; remove it or choose another --socket")
            }
            return true
        }
        guard exists else { return }
        if let live = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path).get()
        {
            try? await live.close()
            throw ScanBridgeError.unavailable(
                "another scanbridged is already running at \(path); stop it first or choose another --socket")
        }
        _ = try await NIOThreadPool.singleton.runIfActive { unlink(path) }
    }

    /// A socket bound at `path`, not yet listening, whose file has mode 0660 and, when one is
    /// configured, the group that may connect, from the moment it exists: nothing changes
    /// it through its path afterwards, where another file could have taken its place.
    static func bind(_ path: String, group: UInt32?) async throws -> CInt {
        // sockaddr_un holds 108 bytes, the last one the terminating zero.
        guard path.utf8.count < 108 else {
            throw ScanBridgeError.unavailable(
                "the socket path \(path) is too long for a Unix socket (at most 107 bytes); choose a shorter --socket")
        }
        return try await NIOThreadPool.singleton.runIfActive {
            let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { throw failure("cannot create a socket", errno) }
            let bound = csocketbind_bind(socket, path, 0o660, group.map(Int64.init) ?? -1)
            guard bound == 0 else {
                close(socket)
                if bound < 0 {
                    throw failure(
                        """
                        cannot bind the socket \(path) with its mode: the system refused the daemon \
                        unshare(CLONE_FS), which gives the binding thread a umask of its own; allow that call \
                        (a container's or service's system call filter)
                        """, -bound)
                }
                throw failure("cannot bind the socket \(path)", bound)
            }
            var info = stat()
            if let group, lstat(path, &info) == 0, info.st_gid != group {
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
                close(socket)
                unlink(path)
                throw ScanBridgeError.unavailable(
                    """
                    the socket \(path) would have group \(info.st_gid), not socket_group (\(group)), and this daemon's \
                    user may not give its files that group; let the folder give it: `chgrp \(group) \(folder) && \
                    chmod g+s \(folder)`, or remove the folder and let the daemon create it
                    """)
            }
            return socket
        }
    }

    private static func failure(_ what: String, _ code: Int32) -> ScanBridgeError {
        .unavailable("\(what): \(String(cString: strerror(code)))")
    }
}
