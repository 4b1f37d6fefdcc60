public import ScanBridgeCodes

/// What the daemon made of the Secure Unique NFC message a tap's NDEF URL carried
/// (docs/protocol.md "Secure cards"). On the wire it is `"sun": {"verified", "counter"}`;
/// the UID the message named and why it failed stay inside the daemon, for the card-link
/// handler, and neither the encrypted data nor any key is kept.
public struct SUNReading: Sendable, Hashable {
    /// Why a message was not verified.
    public enum Failure: String, Sendable, Hashable, CaseIterable {
        /// The SDMMAC is wrong: the URL was altered, or made with another key.
        case badCMAC = "bad-cmac"
        /// The MAC is right but the read counter is not above the last accepted one.
        case replayed
        /// The daemon has no key that opens it (no keys configured, or another shop's card).
        case unknownKey = "unknown-key"
    }

    /// CMAC right and the read counter higher than the last accepted one.
    public var verified: Bool
    /// The read counter, when the MAC vouches for it.
    public var counter: Int?
    /// The UID inside the message, once decrypted (vouched for only when `verified`).
    public var uid: NFCUID?
    public var failure: Failure?
    /// Why the message could not be judged (the store failed), as a sentence for the log and
    /// the resolution's `message`.
    public var trouble: String?

    public init(
        verified: Bool, counter: Int? = nil, uid: NFCUID? = nil, failure: Failure? = nil, trouble: String? = nil
    ) {
        self.verified = verified
        self.counter = counter
        self.uid = uid
        self.failure = failure
        self.trouble = trouble
    }

    /// The wire form: `verified`, and `counter` when known.
    public var wire: JSONValue {
        var members: [String: JSONValue] = ["verified": .bool(verified)]
        if let counter { members["counter"] = .int(Int64(counter)) }
        return .object(members)
    }

    /// Reads the wire form back (a journaled event); nil for absent or null.
    public init?(wire value: JSONValue?) throws(WireError) {
        switch value {
        case nil, .null?: return nil
        case .object(let members)?:
            guard case .bool(let verified)? = members["verified"] else { throw WireError("\"sun.verified\" is not a bool") }
            self.init(verified: verified, counter: members["counter"]?.intValue.map(Int.init))
        case .some(let other): throw WireError("\"sun\" is \(other.typeName), not an object")
        }
    }
}
