/// The methods and notifications of the protocol, and the role each method needs.
package enum MethodCatalog {
    /// The least role allowed to call `method`.
    /// Compared as UTF-8 bytes, since it is asked for every call: splitting the name and
    /// `hasSuffix` compare by Unicode rules, which a method name never needs.
    package static func requiredRole(for method: String) -> Role {
        let name = method.utf8
        let group = name.prefix { $0 != UInt8(ascii: ".") }
        func isGroup(_ candidate: String) -> Bool { group.elementsEqual(candidate.utf8) }
        func isMethod(_ candidate: String) -> Bool { name.elementsEqual(candidate.utf8) }
        if isGroup("bridge") || isGroup("events") || isMethod("devices.list") || isMethod("cards.get")
            || isMethod("products.list")
            || name.reversed().starts(with: ".lookup".utf8.reversed())
        {
            return .reader
        }
        if isGroup("cards") || isGroup("customers") || isMethod("devices.reset") { return .operator }
        return .admin
    }

    /// Methods served on the Unix socket alone, whatever the role: the access tokens and the
    /// shop's store are managed at the counter, never over the network, so a leaked admin
    /// token cannot mint tokens that outlive its revocation or move the counter's data.
    package static func isSocketOnly(_ method: String) -> Bool {
        method.utf8.starts(with: "tokens.".utf8) || method.utf8.starts(with: "store.".utf8)
    }

    /// Methods that need a connection that stays open (a subscription, a registration, a
    /// staged import), refused over `POST /v1/rpc`, whose connection lives for one call.
    package static func needsOpenConnection(_ method: String) -> Bool { openConnectionMethods.contains(method) }

    private static let openConnectionMethods: Set<String> = [
        "events.subscribe", "handlers.register", "products.stage", "products.commit",
    ]

    /// Methods whose only effect is their answer. Sent as a notification, which gets no
    /// answer, one would do work nobody sees: the daemon does not run it, so a flood of them
    /// costs nothing but the reading.
    package static let answerOnly: Set<String> = [
        "bridge.hello", "devices.list", "devices.candidates", "events.recent", "events.ticket", "products.lookup",
        "products.list",
        "orders.lookup",
        "cards.get", "cards.list", "customers.get", "tokens.list",
    ]

    // Daemon → client notifications.
    package static let scan = "scan"
    package static let deviceAdded = "device.added"
    package static let deviceRemoved = "device.removed"
    package static let deviceChanged = "device.changed"
    package static let eventsGap = "events.gap"
    package static let eventsOverflow = "events.overflow"
    /// Every notification the daemon sends.
    package static let notifications = [scan, deviceAdded, deviceRemoved, deviceChanged, eventsGap, eventsOverflow]

    // Daemon → client requests, to a client registered as a handler.
    package static let handlerResolve = "handler.resolve"
    /// Every request the daemon sends.
    package static let daemonRequests = [handlerResolve]
}
