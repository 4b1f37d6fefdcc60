package import Foundation

/// The listening sockets a service manager handed the daemon (sd_listen_fds(3)): systemd's
/// socket units hold them, so clients connect while the daemon starts or restarts.
package struct ActivatedSockets: Sendable, Equatable {
    /// One inherited listener.
    package struct Listener: Sendable, Equatable {
        package let descriptor: CInt
        /// `FileDescriptorName=` of its socket unit ("unknown" when unnamed).
        package let name: String
        /// A Unix socket's path.
        package var path: String?
    }

    /// The Unix stream socket clients connect to.
    package var unix: Listener?
    /// The TCP listeners, the gateway's.
    package var tcp: [Listener] = []

    package init() {}

    /// The first file descriptor passed (`SD_LISTEN_FDS_START`).
    static let firstDescriptor: CInt = 3

    /// Takes the sockets named by `LISTEN_FDS` when `LISTEN_PID` is this process, removes
    /// the variables (so nothing the daemon starts takes them for its own), and marks the
    /// descriptors close-on-exec. A passed descriptor that is neither a listening Unix stream
    /// socket nor a TCP one, or a second Unix one, is an error: the socket unit is wrong.
    package static func take() throws -> ActivatedSockets {
        let environment = ProcessInfo.processInfo.environment
        defer {
            for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        }
        let passed = descriptors(in: environment, pid: getpid())
        var sockets = ActivatedSockets()
        for listener in passed {
            _ = fcntl(listener.descriptor, F_SETFD, FD_CLOEXEC)
            switch kind(of: listener.descriptor) {
            case .unix(let path):
                if let first = sockets.unix {
                    throw ActivationError(
                        description:
                            "the service manager passed two Unix sockets (\(first.path ?? "?") and \(path)); the daemon serves one: fix the socket unit"
                    )
                }
                var unix = listener
                unix.path = path
                sockets.unix = unix
            case .tcp:
                sockets.tcp.append(listener)
            case .other(let what):
                throw ActivationError(
                    description:
                        "the service manager passed descriptor \(listener.descriptor) (\(listener.name)), \(what); the daemon takes listening Unix or TCP stream sockets: fix the socket unit"
                )
            }
        }
        return sockets
    }

    /// The descriptors `environment` passes to the process `pid`, with their names.
    package static func descriptors(in environment: [String: String], pid: pid_t) -> [Listener] {
        guard let owner = environment["LISTEN_PID"].flatMap(pid_t.init), owner == pid,
            let count = environment["LISTEN_FDS"].flatMap(Int.init), count > 0, count <= 1024
        else { return [] }
        let names = (environment["LISTEN_FDNAMES"] ?? "").split(separator: ":", omittingEmptySubsequences: false)
        return (0..<count).map { index in
            let name = index < names.count && !names[index].isEmpty ? String(names[index]) : "unknown"
            return Listener(descriptor: firstDescriptor + CInt(index), name: name, path: nil)
        }
    }

    private enum Kind {
        case unix(path: String)
        case tcp
        case other(String)
    }

    private static func kind(of descriptor: CInt) -> Kind {
        var type: CInt = 0
        var listening: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else {
            return .other("not a socket")
        }
        length = socklen_t(MemoryLayout<CInt>.size)
        guard type == CInt(SOCK_STREAM.rawValue),
            getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1
        else { return .other("not a listening stream socket") }
        var address = sockaddr_storage()
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return .other("a socket without an address") }
        switch CInt(address.ss_family) {
        case AF_INET, AF_INET6:
            return .tcp
        case AF_UNIX:
            let path = withUnsafeBytes(of: &address) { raw -> String in
                let offset = MemoryLayout<sa_family_t>.size
                let bytes = raw[offset..<Int(length)].prefix { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
            return path.hasPrefix("/") ? .unix(path: path) : .other("a Unix socket without a path")
        default:
            return .other("a socket of family \(address.ss_family)")
        }
    }
}

/// A socket unit passed what the daemon cannot serve.
package struct ActivationError: Error, CustomStringConvertible {
    package let description: String
}
