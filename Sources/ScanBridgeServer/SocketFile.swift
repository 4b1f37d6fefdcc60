import Foundation
import NIOCore
import NIOPosix
import ScanBridgeCore
import ScanBridgeModel

/// The socket file's life: reclaim a stale one, refuse to start over a live daemon,
/// set its mode and group, remove it at exit.
enum SocketFile {
    /// Makes `path` free to bind: creates the folder, removes a socket left by a dead
    /// daemon, and refuses when a live daemon answers there or the path is not a socket.
    static func prepare(_ path: String) async throws {
        // File system calls block: they run on NIO's thread pool, not the cooperative pool.
        let exists = try await NIOThreadPool.singleton.runIfActive {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
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

    /// Mode 0660, and the group that may connect when one is configured.
    static func restrict(_ path: String, group: UInt32?) throws {
        if let group, chown(path, UInt32.max, group) != 0 {
            throw ScanBridgeError.unavailable("cannot give \(path) to group \(group): \(String(cString: strerror(errno)))")
        }
        guard chmod(path, 0o660) == 0 else {
            throw ScanBridgeError.unavailable("cannot set the mode of \(path): \(String(cString: strerror(errno)))")
        }
    }
}
