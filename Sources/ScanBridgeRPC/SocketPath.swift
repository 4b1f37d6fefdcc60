public import Foundation

/// Where the daemon's socket is (docs/protocol.md "The socket"); the daemon and the CLI
/// resolve it alike.
public enum SocketPath {
    /// The system daemon's socket.
    public static let system = "/run/scanbridge/scanbridge.sock"

    /// What to say when no path applies.
    public static let noneApplies = """
        no socket path applies: pass --socket PATH, or set SCANBRIDGE_SOCKET, RUNTIME_DIRECTORY or \
        XDG_RUNTIME_DIR (a shared /tmp path would let another user take the socket's place)
        """

    /// The first that applies: the explicit path, `SCANBRIDGE_SOCKET`,
    /// `$RUNTIME_DIRECTORY/scanbridge.sock` (systemd's runtime directory of the service),
    /// `$XDG_RUNTIME_DIR/scanbridge/scanbridge.sock`, `/run/scanbridge/scanbridge.sock` as root;
    /// nil when none does.
    public static func resolve(
        explicit: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        uid: UInt32 = getuid()
    ) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment["SCANBRIDGE_SOCKET"], !path.isEmpty { return path }
        if let runtime = ServiceDirectory.runtime.folder(in: environment) { return runtime + "/scanbridge.sock" }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/scanbridge/scanbridge.sock"
        }
        return uid == 0 ? system : nil
    }

    /// The sockets a client tries, in order: the resolved one, then the system daemon's when
    /// the resolved one is a per-user default (not named by `--socket` or `SCANBRIDGE_SOCKET`)
    /// and nothing answers there.
    public static func candidates(
        explicit: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        uid: UInt32 = getuid()
    ) -> [String] {
        guard let path = resolve(explicit: explicit, environment: environment, uid: uid) else { return [system] }
        let named = !(explicit ?? "").isEmpty || !(environment["SCANBRIDGE_SOCKET"] ?? "").isEmpty
        return named || path == system ? [path] : [path, system]
    }
}
