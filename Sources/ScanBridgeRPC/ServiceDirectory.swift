/// A folder systemd makes for the service and names in its environment (`RuntimeDirectory=`,
/// `StateDirectory=`, `ConfigurationDirectory=`): the daemon's socket, database and
/// configuration go there when it runs as a service.
public enum ServiceDirectory: String, Sendable {
    case runtime = "RUNTIME_DIRECTORY"
    case state = "STATE_DIRECTORY"
    case configuration = "CONFIGURATION_DIRECTORY"

    /// The folder, if the environment names one; systemd lists one folder per entry of the
    /// unit's setting, separated by colons, and the first is the service's own.
    public func folder(in environment: [String: String]) -> String? {
        guard let folders = environment[rawValue], let first = folders.split(separator: ":").first, !first.isEmpty
        else { return nil }
        return String(first)
    }
}
