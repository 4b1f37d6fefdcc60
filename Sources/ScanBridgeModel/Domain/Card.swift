public import Foundation
public import ScanBridgeCodes

/// An NFC card linked to a customer's wallet. A UID is linked to one wallet at most.
public struct Card: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case active, inactive, blocked
    }

    /// What a tap must prove for the card to identify its customer (docs/protocol.md "Secure cards").
    public enum Security: String, Sendable, Hashable, CaseIterable {
        /// Its UID, which any card can be made to give: the default, and every card linked before.
        case uid
        /// A Secure Unique NFC message that verified, whose read counter rose since the last tap.
        case secure
    }

    public var uid: NFCUID
    public var walletAddress: String
    public var cardName: String?
    public var status: Status
    public var security: Security
    public var createdAt: Date

    public init(
        uid: NFCUID, walletAddress: String, cardName: String? = nil, status: Status = .active, security: Security = .uid,
        createdAt: Date
    ) {
        self.uid = uid
        self.walletAddress = walletAddress
        self.cardName = cardName
        self.status = status
        self.security = security
        self.createdAt = createdAt
    }

    public var displayName: String {
        Self.displayName(cardName: cardName, uidDisplay: uid.display)
    }

    /// `cardName`, else "Card " and the last four characters of the display UID.
    public static func displayName(cardName: String?, uidDisplay: String) -> String {
        cardName ?? "Card \(uidDisplay.suffix(4))"
    }

    public var wire: JSONValue {
        .object([
            "uid": .string(uid.hex), "uidDisplay": .string(uid.display), "walletAddress": .string(walletAddress),
            "cardName": cardName.map(JSONValue.string) ?? .null, "displayName": .string(displayName),
            "status": .string(status.rawValue), "security": .string(security.rawValue),
            "createdAt": .string(EventTime.format(createdAt)),
        ])
    }
}

extension JSONFields {
    /// A card UID in any accepted spelling (`04A1B2…`, `04:a1:…`, `04-A1-…`).
    public func uid(_ key: String) throws(ScanBridgeError) -> NFCUID {
        let text = try requiredString(key)
        do throws(CodeError) {
            return try NFCUID(parsing: text)
        } catch {
            throw .invalidParams("\(field(key)): \(error.message)", field: field(key))
        }
    }

    /// A wallet address: an opaque identifier, without spaces.
    public func walletAddress(_ key: String) throws(ScanBridgeError) -> String {
        let address = try requiredText(key, maxLength: 128)
        guard !address.contains(where: \.isWhitespace) else {
            throw .invalidParams("\(field(key)) must not contain spaces", field: field(key))
        }
        return address
    }

    /// `uid` or `secure`; nil when absent.
    public func cardSecurity(_ key: String) throws(ScanBridgeError) -> Card.Security? {
        guard let text = try string(key) else { return nil }
        guard let security = Card.Security(rawValue: text) else {
            throw .invalidParams("\(field(key)) must be uid or secure; got '\(text)'", field: field(key))
        }
        return security
    }

    public func cardStatus(_ key: String) throws(ScanBridgeError) -> Card.Status? {
        guard let text = try string(key) else { return nil }
        guard let status = Card.Status(rawValue: text) else {
            throw .invalidParams("\(field(key)) must be active, inactive or blocked; got '\(text)'", field: field(key))
        }
        return status
    }
}
