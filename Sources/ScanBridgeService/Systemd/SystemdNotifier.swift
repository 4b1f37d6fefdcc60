import Foundation

/// sd_notify(3) without libsystemd: one datagram to `$NOTIFY_SOCKET`.
package enum SystemdNotifier {
    /// Sends `state` at once, never waiting: a manager that does not read its queue (ten
    /// datagrams deep) loses the message rather than stall the thread that sent it. For the
    /// watchdog's beats, of which the next one comes soon.
    package static func notify(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        send(state, environment: environment, waiting: nil)
    }

    /// Sends `state` from a thread of its own, waiting up to 5 s for room in the manager's
    /// queue: for a message sent once, such as READY=1, whose loss would fail the start.
    package static func tell(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        DispatchQueue.global(qos: .utility).async { send(state, environment: environment, waiting: 5) }
    }

    private static func send(_ state: String, environment: [String: String], waiting seconds: Int?) {
        guard var path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return }
        // "@name" is an abstract socket: a leading NUL byte on the wire.
        let abstract = path.hasPrefix("@")
        if abstract { path.removeFirst() }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        if let seconds {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
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
                    sendto(
                        fd, message, strlen(message), Int32(MSG_NOSIGNAL) | (seconds == nil ? Int32(MSG_DONTWAIT) : 0),
                        socketAddress, length)
                }
            }
        }
    }
}
