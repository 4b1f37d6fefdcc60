import Foundation

/// Where the daemon's socket is (docs/protocol.md "Transport"); the daemon and the CLI resolve it alike.
public enum SocketPath {
    /// The first that applies: the explicit path, `SCANBRIDGE_SOCKET`,
    /// `$XDG_RUNTIME_DIR/scanbridge/scanbridge.sock`, `/run/scanbridge/scanbridge.sock` as root,
    /// else `/tmp/scanbridge-<uid>/scanbridge.sock`.
    public static func resolve(
        explicit: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        uid: UInt32 = getuid()
    ) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment["SCANBRIDGE_SOCKET"], !path.isEmpty { return path }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/scanbridge/scanbridge.sock"
        }
        if uid == 0 { return "/run/scanbridge/scanbridge.sock" }
        return "/tmp/scanbridge-\(uid)/scanbridge.sock"
    }
}
