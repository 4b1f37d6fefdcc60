package import Foundation

/// Calls `body` with a `sockaddr_un` for the filesystem path `path` and its length, for
/// `connect` or `bind`; nil when the path does not fit in `sun_path`.
package func withUnixSocketAddress<Result>(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
) -> Result? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}
