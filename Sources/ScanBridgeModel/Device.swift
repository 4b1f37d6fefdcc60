/// A scanning device as clients see it (docs/protocol.md "Device").
public struct Device: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Codable, Hashable {
        /// Open and reading.
        case ready
        /// Exclusively held by another program.
        case busy
        /// Present but failing; `error` says why.
        case error
        /// Unplugged; kept in the list until it returns or the daemon restarts.
        case gone
    }

    /// Stable across unplug/replug and restarts for the same physical device on the same port.
    public var id: String
    public var driver: String
    public var kind: DeviceKind
    public var name: String
    public var state: State
    /// A sentence saying what is wrong, when `state` is `error` or `busy`.
    public var error: String?
    public var vendorId: String?
    public var productId: String?
    public var serial: String?
    public var path: String?
    /// What the operator should change, when the driver sees a sign of a wrong setting (a
    /// keyboard-wedge scanner that seems set to another layout than declared). Optional on the wire.
    public var hint: String?

    public init(
        id: String, driver: String, kind: DeviceKind, name: String, state: State = .ready,
        error: String? = nil, vendorId: String? = nil, productId: String? = nil,
        serial: String? = nil, path: String? = nil, hint: String? = nil
    ) {
        self.id = id
        self.driver = driver
        self.kind = kind
        self.name = name
        self.state = state
        self.error = error
        self.vendorId = vendorId
        self.productId = productId
        self.serial = serial
        self.path = path
        self.hint = hint
    }

    private enum CodingKeys: String, CodingKey {
        case id, driver, kind, name, state, error, vendorId, productId, serial, path, hint
    }

    // The identity fields are always present, as null when unknown, so clients can rely on them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(driver, forKey: .driver)
        try container.encode(kind, forKey: .kind)
        try container.encode(name, forKey: .name)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encode(vendorId, forKey: .vendorId)
        try container.encode(productId, forKey: .productId)
        try container.encode(serial, forKey: .serial)
        try container.encode(path, forKey: .path)
        try container.encodeIfPresent(hint, forKey: .hint)
    }
}
