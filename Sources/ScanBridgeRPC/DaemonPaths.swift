public import Foundation

/// Where the daemon keeps its database and finds its configuration when no option names
/// them: systemd's folders for the service first, then the system's for root, then the user's.
public enum DaemonPaths {
    /// The configuration file installed for a system daemon.
    public static let systemConfig = "/etc/scanbridge/scanbridge.yaml"

    /// The configuration read without `--config`: `scanbridge.yaml` in the service's
    /// configuration folder when systemd names one, else `/etc/scanbridge/scanbridge.yaml`
    /// for root, else in the user's XDG configuration folder; nil when that file does not
    /// exist, and the defaults apply. A user's own daemon never reads the system's file.
    public static func config(
        environment: [String: String] = ProcessInfo.processInfo.environment, uid: UInt32 = getuid(),
        exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> String? {
        let path: String
        if let folder = ServiceDirectory.configuration.folder(in: environment) {
            path = folder + "/scanbridge.yaml"
        } else if uid == 0 {
            path = systemConfig
        } else {
            path = userFolder("XDG_CONFIG_HOME", else: ".config", in: environment) + "/scanbridge/scanbridge.yaml"
        }
        return exists(path) ? path : nil
    }

    /// The database without `--database` or `database:`: `scanbridge.sqlite` in the service's
    /// state folder when systemd names one, `/var/lib/scanbridge/scanbridge.sqlite` for
    /// root, else in the user's XDG data folder.
    public static func database(
        environment: [String: String] = ProcessInfo.processInfo.environment, uid: UInt32 = getuid()
    ) -> String {
        if let state = ServiceDirectory.state.folder(in: environment) { return state + "/scanbridge.sqlite" }
        if uid == 0 { return "/var/lib/scanbridge/scanbridge.sqlite" }
        return userFolder("XDG_DATA_HOME", else: ".local/share", in: environment) + "/scanbridge/scanbridge.sqlite"
    }

    /// An XDG base folder: the variable's, or its default under the home folder when it is
    /// unset or empty.
    private static func userFolder(_ variable: String, else home: String, in environment: [String: String]) -> String {
        environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? (environment["HOME"] ?? NSHomeDirectory()) + "/" + home
    }
}
