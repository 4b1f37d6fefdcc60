import Foundation

/// The receiving end of sd_notify: a datagram socket passed to the daemon as
/// `NOTIFY_SOCKET`, so a harness knows when *this* daemon is ready (as systemd would).
final class ReadinessSocket: Sendable {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonHarness.Failure(description: "cannot create a notify socket") }
        guard let bound = withUnixSocketAddress(path, { bind(fd, $0, $1) }) else {
            close(fd)
            throw DaemonHarness.Failure(description: "notify socket path too long: \(path)")
        }
        guard bound == 0 else {
            close(fd)
            throw DaemonHarness.Failure(description: "cannot bind the notify socket \(path)")
        }
        self.fd = fd
        self.path = path
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The messages received so far (non-blocking).
    func receive() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { return messages }
            messages.append(String(decoding: buffer[..<count], as: UTF8.self))
        }
    }
}
