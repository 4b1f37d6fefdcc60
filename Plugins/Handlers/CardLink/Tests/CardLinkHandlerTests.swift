import Foundation
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import Synchronization
import Testing

@testable import CardLink

/// What card-link answers a tap of a secure card, by what the message check found
/// (`ScanEvent.sun`), with an in-memory repository.
@Suite struct CardLinkHandlerTests {
    /// Cards in memory; read counters are not its concern here (`SUNCheck` asks them).
    final class Cards: CardRepository {
        let cards = Mutex<[String: Card]>([:])

        func card(uid: NFCUID) async throws -> Card? { cards.withLock { $0[uid.hex] } }
        func identify(uid: NFCUID) async throws -> (card: Card, customer: Customer?)? {
            try await card(uid: uid).map { ($0, Customer(walletAddress: $0.walletAddress, createdAt: $0.createdAt)) }
        }
        func cards(walletAddress: String?) async throws -> [Card] { cards.withLock { Array($0.values) } }
        func link(uid: NFCUID, walletAddress: String, cardName: String?, security: Card.Security, at time: Date)
            async throws -> CardLinkOutcome
        {
            let card = Card(uid: uid, walletAddress: walletAddress, cardName: cardName, security: security, createdAt: time)
            cards.withLock { $0[uid.hex] = card }
            return .linked(card, Customer(walletAddress: walletAddress, createdAt: time))
        }
        func setStatus(uid: NFCUID, status: Card.Status) async throws -> Card? { nil }
        func unlink(uid: NFCUID) async throws -> Bool { false }
        func acceptReadCounter(uid: NFCUID, counter: Int) async throws -> Bool { true }
    }

    static let real = try! NFCUID(parsing: "04DE5F1EACC040")
    static let random = try! NFCUID(parsing: "084F219C")

    func tap(_ uid: NFCUID, sun: SUNReading?) -> ScanEvent {
        ScanEvent(
            id: UUID().uuidString, time: Date(), device: "pcsc:x", driver: "pcsc", kind: .nfc, symbology: "iso14443a",
            text: uid.hex, uid: uid.hex, sun: sun)
    }

    func handler(linking security: Card.Security) async throws -> CardLinkHandler {
        let cards = Cards()
        _ = try await cards.link(uid: Self.real, walletAddress: "rAda", cardName: nil, security: security, at: Date())
        return CardLinkHandler(cards: cards, arms: CardArms())
    }

    @Test func aSecureCardIsIdentifiedByAVerifiedMessageUnderItsRealUID() async throws {
        let handler = try await handler(linking: .secure)
        let resolution = try await handler.resolve(
            tap(Self.random, sun: SUNReading(verified: true, counter: 4, uid: Self.real)))
        #expect(resolution.status == "identified" && resolution.details["verified"] == .bool(true))
        #expect(resolution.details["customer"]?["walletAddress"] == .string("rAda"))
    }

    @Test(arguments: [
        (SUNReading?.none, "no-message"),
        (SUNReading(verified: false, counter: 3, uid: real, failure: .replayed), "replayed"),
        (SUNReading(verified: false, uid: real, failure: .badCMAC), "bad-cmac"),
        (SUNReading(verified: false, failure: .unknownKey), "unknown-key"),
        // Noise a wrong key decrypted to names no card: the reader's UID is the card tried.
        (SUNReading(verified: false, uid: try! NFCUID(parsing: "04000000000001"), failure: .badCMAC), "bad-cmac"),
    ])
    func anUnverifiedTapOfASecureCardIsRefused(sun: SUNReading?, reason: String) async throws {
        let handler = try await handler(linking: .secure)
        let resolution = try await handler.resolve(tap(Self.real, sun: sun))
        #expect(resolution.status == "unverified" && resolution.details["reason"] == .string(reason))
        #expect(resolution.details["customer"] == nil && resolution.details["verified"] == .bool(false))
        #expect(resolution.details["card"]?["uid"] == .string(Self.real.hex))
    }

    @Test func aUIDCardResolvesAsBeforeWithVerifiedBeside() async throws {
        let handler = try await handler(linking: .uid)
        let plain = try await handler.resolve(tap(Self.real, sun: nil))
        #expect(plain.status == "identified" && plain.details["verified"] == nil)
        let failed = try await handler.resolve(tap(Self.real, sun: SUNReading(verified: false, failure: .unknownKey)))
        #expect(failed.status == "identified" && failed.details["verified"] == .bool(false))
    }

    @Test func theStoreFailingIsAnErrorNeverAnIdentification() async throws {
        let handler = try await handler(linking: .secure)
        let resolution = try await handler.resolve(
            tap(Self.real, sun: SUNReading(verified: false, counter: 9, uid: Self.real, trouble: "the disk is full")))
        #expect(resolution.status == "error" && resolution.details["message"]?.stringValue?.contains("disk is full") == true)
    }
}
