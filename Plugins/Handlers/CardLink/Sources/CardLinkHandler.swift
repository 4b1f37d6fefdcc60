import ScanBridgeCodes
package import ScanBridgeCore
package import ScanBridgeModel

/// The built-in `card-link` handler: an NFC tap identifies the card's customer, or, when
/// a link is armed, links an unknown card to the armed wallet.
package struct CardLinkHandler: ScanHandler {
    package let name = "card-link"
    package let priority = 0
    let cards: any CardRepository
    let arms: CardArms

    package init(cards: any CardRepository, arms: CardArms) {
        self.cards = cards
        self.arms = arms
    }

    package func accepts(_ event: ScanEvent) -> Bool {
        event.kind == .nfc && event.uid != nil
    }

    package func resolve(_ event: ScanEvent) async throws -> Resolution {
        guard let hex = event.uid, let uid = try? NFCUID(parsing: hex) else {
            return Resolution(handler: name, status: "error", details: ["message": "the event carries no card UID"])
        }
        if let arm = arms.take(forDevice: event.device) {
            switch try await cards.link(uid: uid, walletAddress: arm.walletAddress, cardName: arm.cardName, at: event.time) {
            case .linked(let card, let customer), .alreadyLinked(let card, let customer):
                return resolution("linked", card, customer)
            case .conflict(let card):
                var conflict = resolution("conflict", card, nil)
                conflict.details["reason"] = .string(
                    "card \(uid.display) is linked to another wallet; unlink it first to link it to \(arm.walletAddress)")
                return conflict
            }
        }
        guard let (card, customer) = try await cards.identify(uid: uid) else {
            return Resolution(handler: name, status: "unknown")
        }
        switch card.status {
        case .active: return resolution("identified", card, customer)
        case .inactive: return resolution("inactive", card, nil)
        case .blocked: return resolution("blocked", card, nil)
        }
    }

    private func resolution(_ status: String, _ card: Card, _ customer: Customer?) -> Resolution {
        var details: [String: JSONValue] = ["card": card.wire]
        if let customer { details["customer"] = customer.wire }
        return Resolution(handler: name, status: status, details: details)
    }
}
