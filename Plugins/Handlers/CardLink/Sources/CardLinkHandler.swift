import ScanBridgeCodes
package import ScanBridgeCore
package import ScanBridgeModel

/// The built-in `card-link` handler: an NFC tap identifies the card's customer, or, when
/// a link is armed, links an unknown card to the armed wallet. A secure card
/// (`Card.Security.secure`) identifies its customer only by a tap whose Secure Unique NFC
/// message verified (`ScanEvent.sun`, from `SUNCheck`); the card is the one the message names.
package struct CardLinkHandler: ScanHandler {
    package let name = "card-link"
    package let priority = 0
    let cards: any CardRepository
    let arms: CardArms
    let metrics: ScanMetrics

    package init(cards: any CardRepository, arms: CardArms, metrics: ScanMetrics = .none) {
        self.cards = cards
        self.arms = arms
        self.metrics = metrics
    }

    package func accepts(_ event: ScanEvent) -> Bool {
        event.kind == .nfc && event.uid != nil
    }

    package func resolve(_ event: ScanEvent) async throws -> Resolution {
        guard let hex = event.uid, let anticollision = try? NFCUID(parsing: hex) else {
            return Resolution(handler: name, status: "error", details: ["message": "the event carries no card UID"])
        }
        // The UID inside the message, when it has one: a tag may answer anticollision with a random one.
        let uid = event.sun?.uid ?? anticollision
        if let arm = arms.take(forDevice: event.device) {
            if arm.security == .secure, let refused = unverified(event.sun, card: nil) { return refused }
            switch try await cards.link(
                uid: uid, walletAddress: arm.walletAddress, cardName: arm.cardName, security: arm.security, at: event.time)
            {
            case .linked(let card, let customer), .alreadyLinked(let card, let customer):
                return resolution("linked", card, customer, event.sun)
            case .conflict(let card):
                var conflict = resolution("conflict", card, nil, event.sun)
                conflict.details["reason"] = .string(
                    "card \(uid.display) is linked to another wallet; unlink it first to link it to \(arm.walletAddress)")
                return conflict
            }
        }
        // A message that failed vouches for no UID: one a wrong key decrypted to noise names no
        // card, and the card the reader saw is then the one tried.
        let found: (card: Card, customer: Customer?)?
        if let claimed = try await cards.identify(uid: uid) {
            found = claimed
        } else if event.sun?.verified == false, uid != anticollision {
            found = try await cards.identify(uid: anticollision)
        } else {
            found = nil
        }
        guard let (card, customer) = found else { return resolution("unknown", nil, nil, event.sun) }
        if card.security == .secure, let refused = unverified(event.sun, card: card) { return refused }
        switch card.status {
        case .active: return resolution("identified", card, customer, event.sun)
        case .inactive: return resolution("inactive", card, nil, event.sun)
        case .blocked: return resolution("blocked", card, nil, event.sun)
        }
    }

    /// The refusal of a tap that must be verified and was not: `unverified` with its reason
    /// (counted), or `error` when the store could not judge it; nil when it verified.
    private func unverified(_ sun: SUNReading?, card: Card?) -> Resolution? {
        if sun?.verified == true { return nil }
        if let trouble = sun?.trouble {
            return .error(handler: name, message: "the card's read counter could not be checked: \(trouble)")
        }
        let reason = sun?.failure?.rawValue ?? "no-message"
        metrics.cardUnverified(reason: reason)
        var refused = resolution("unverified", card, nil, sun ?? SUNReading(verified: false))
        refused.details["reason"] = .string(reason)
        return refused
    }

    private func resolution(_ status: String, _ card: Card?, _ customer: Customer?, _ sun: SUNReading?) -> Resolution {
        var details: [String: JSONValue] = [:]
        if let card { details["card"] = card.wire }
        if let customer { details["customer"] = customer.wire }
        if let sun { details["verified"] = .bool(sun.verified) }
        return Resolution(handler: name, status: status, details: details)
    }
}
