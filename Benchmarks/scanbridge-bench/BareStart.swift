import Foundation
import ScanBridgeTesting

/// The startup scenario's baseline: this benchmark started again as a bare process that says
/// `READY=1` on `NOTIFY_SOCKET` as soon as it runs, then waits for its SIGTERM. What the
/// daemon measures beyond it is its own start.
enum BareStart {
    static func run() -> Never {
        if let path = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] {
            let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            let message = Array("READY=1".utf8)
            _ = withUnixSocketAddress(path) { address, length in
                message.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, 0, address, length) }
            }
            close(descriptor)
        }
        // Started from a thread of the benchmark's pool, it may inherit a mask that blocks SIGTERM.
        var terminate = sigset_t()
        sigemptyset(&terminate)
        sigaddset(&terminate, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &terminate, nil)
        while true { pause() }
    }
}
