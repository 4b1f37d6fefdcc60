public import Foundation

/// A customer, known by wallet address, with the milestones of their journey.
public struct Customer: Sendable, Hashable {
    /// Each is set once, when it first happens.
    public struct Milestones: Sendable, Hashable {
        public var firstCardLinkedAt: Date?
        public var firstPaymentAt: Date?
        public var autoSignEnabledAt: Date?

        public init(firstCardLinkedAt: Date? = nil, firstPaymentAt: Date? = nil, autoSignEnabledAt: Date? = nil) {
            self.firstCardLinkedAt = firstCardLinkedAt
            self.firstPaymentAt = firstPaymentAt
            self.autoSignEnabledAt = autoSignEnabledAt
        }
    }

    public var walletAddress: String
    public var name: String?
    public var email: String?
    public var phone: String?
    public var milestones: Milestones
    public var createdAt: Date

    public init(
        walletAddress: String, name: String? = nil, email: String? = nil, phone: String? = nil,
        milestones: Milestones = Milestones(), createdAt: Date
    ) {
        self.walletAddress = walletAddress
        self.name = name
        self.email = email
        self.phone = phone
        self.milestones = milestones
        self.createdAt = createdAt
    }

    public var wire: JSONValue {
        func time(_ date: Date?) -> JSONValue { date.map { .string(EventTime.format($0)) } ?? .null }
        return .object([
            "walletAddress": .string(walletAddress), "name": name.map(JSONValue.string) ?? .null,
            "email": email.map(JSONValue.string) ?? .null, "phone": phone.map(JSONValue.string) ?? .null,
            "milestones": .object([
                "firstCardLinkedAt": time(milestones.firstCardLinkedAt), "firstPaymentAt": time(milestones.firstPaymentAt),
                "autoSignEnabledAt": time(milestones.autoSignEnabledAt),
            ]),
            "createdAt": .string(EventTime.format(createdAt)),
        ])
    }

    /// Reads a customer given by a client (`customers.upsert`). Milestones other than the
    /// card link may be given; none is ever cleared or moved once set.
    public init(input: JSONFields, now: Date) throws(ScanBridgeError) {
        let email = try input.text("email")
        if let email, email.split(separator: "@").count != 2 || email.contains(where: \.isWhitespace) {
            throw .invalidParams("\(input.field("email")) is not an email address: '\(email)'", field: input.field("email"))
        }
        let milestones = try input.object("milestones")
        self.init(
            walletAddress: try input.walletAddress("walletAddress"), name: try input.text("name"), email: email,
            phone: try input.text("phone", maxLength: 32),
            milestones: Milestones(
                firstPaymentAt: try milestones?.time("firstPaymentAt"),
                autoSignEnabledAt: try milestones?.time("autoSignEnabledAt")),
            createdAt: now)
    }
}
