import Foundation

/// sd_notify(3) without libsystemd: one datagram to `$NOTIFY_SOCKET`, never waiting: a
/// manager that does not read its queue (ten datagrams deep) loses a message rather than
/// stalling the thread that sent it, a watchdog beat among them.
package enum SystemdNotifier {
    package static func notify(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard var path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return }
        // "@name" is an abstract socket: a leading NUL byte on the wire.
        let abstract = path.hasPrefix("@")
        if abstract { path.removeFirst() }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = (abstract ? [0] : []) + Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        _ = state.withCString { message in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    sendto(fd, message, strlen(message), Int32(MSG_DONTWAIT | MSG_NOSIGNAL), socketAddress, length)
                }
            }
        }
    }
}
