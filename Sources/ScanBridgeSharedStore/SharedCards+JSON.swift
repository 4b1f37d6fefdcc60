import Foundation
import ScanBridgeCodes
import ScanBridgeModel

/// Customers and cards as `RecordsetJSON`. Times are whole milliseconds since 1970, as
/// counters keep them.
extension SharedCards {
    static let customerRecordType = """
        wallet_address text, name text, email text, phone text, first_card_linked_at_ms bigint, \
        first_payment_at_ms bigint, auto_sign_enabled_at_ms bigint, created_at_ms bigint
        """

    static let cardRecordType =
        "uid text, wallet_address text, card_name text, status text, created_at_ms bigint, security text"

    static func json(_ customers: [Customer]) throws -> String {
        try RecordsetJSON.encode(
            customers.map { customer in
                CustomerJSON(
                    walletAddress: customer.walletAddress, name: customer.name, email: customer.email,
                    phone: customer.phone,
                    firstCardLinkedAtMs: customer.milestones.firstCardLinkedAt.map(RecordsetJSON.milliseconds),
                    firstPaymentAtMs: customer.milestones.firstPaymentAt.map(RecordsetJSON.milliseconds),
                    autoSignEnabledAtMs: customer.milestones.autoSignEnabledAt.map(RecordsetJSON.milliseconds),
                    createdAtMs: RecordsetJSON.milliseconds(customer.createdAt))
            })
    }

    static func json(_ cards: [Card]) throws -> String {
        try RecordsetJSON.encode(
            cards.map { card in
                CardJSON(
                    uid: card.uid.hex, walletAddress: card.walletAddress, cardName: card.cardName,
                    status: card.status.rawValue, createdAtMs: RecordsetJSON.milliseconds(card.createdAt),
                    security: card.security.rawValue)
            })
    }

    private struct CustomerJSON: Encodable {
        let walletAddress: String
        let name, email, phone: String?
        let firstCardLinkedAtMs, firstPaymentAtMs, autoSignEnabledAtMs: Int64?
        let createdAtMs: Int64
    }

    private struct CardJSON: Encodable {
        let uid, walletAddress: String
        let cardName: String?
        let status: String
        let createdAtMs: Int64
        let security: String
    }
}
