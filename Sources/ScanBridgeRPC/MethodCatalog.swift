/// The methods and notifications of the protocol, and the role each method needs.
public enum MethodCatalog {
    /// The least role allowed to call `method`.
    public static func requiredRole(for method: String) -> Role {
        let group = method.split(separator: ".", maxSplits: 1).first.map(String.init) ?? method
        if group == "bridge" || group == "events" || method == "devices.list" || method.hasSuffix(".lookup")
            || method == "cards.get"
        {
            return .reader
        }
        if group == "cards" || group == "customers" { return .operator }
        return .admin
    }

    // Daemon → client notifications.
    public static let scan = "scan"
    public static let deviceAdded = "device.added"
    public static let deviceRemoved = "device.removed"
    public static let deviceChanged = "device.changed"
    public static let eventsGap = "events.gap"
    public static let eventsOverflow = "events.overflow"
}
