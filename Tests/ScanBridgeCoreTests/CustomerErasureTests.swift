import Foundation
import ScanBridgeCore
import ScanBridgeModel
import Testing

@Suite("Erasing a customer from journaled events")
struct CustomerErasureTests {
    static func tap(_ wallet: String, seq: UInt64 = 0) -> ScanEvent {
        var event = ReaderViewTests.tap
        event.seq = seq
        event.resolution.details["card"] = [
            "uid": "04A1B2C3D4E5F6", "uidDisplay": "04:A1:B2:C3:D4:E5:F6", "walletAddress": .string(wallet),
            "cardName": "Ada's card", "displayName": "Ada's card",
        ]
        event.resolution.details["customer"] = [
            "walletAddress": .string(wallet), "name": "Ada", "email": "ada@example.com", "phone": "+44 1",
        ]
        return event
    }

    @Test("the customer's name, email and phone and the card's name go; the rest stays")
    func erasing() throws {
        let erased = try #require(Self.tap("rAda").erasingCustomer(walletAddress: "rAda"))
        let customer = erased.resolution.details["customer"]
        #expect(customer?["name"] == .null && customer?["email"] == .null && customer?["phone"] == .null)
        #expect(customer?["walletAddress"] == "rAda")
        let card = erased.resolution.details["card"]
        #expect(card?["cardName"] == .null && card?["displayName"] == "Card 5:F6")
        #expect(card?["uid"] == "04A1B2C3D4E5F6")
        #expect(erased.uid == Self.tap("rAda").uid && erased.resolution.status == "identified")
        #expect(erased.erasingCustomer(walletAddress: "rAda") == nil, "erasing twice changes nothing")
    }

    @Test("another wallet's event, or one with no customer, is left alone")
    func others() {
        #expect(Self.tap("rBob").erasingCustomer(walletAddress: "rAda") == nil)
        var barcode = Self.tap("rAda")
        barcode.resolution = Resolution(handler: "product-lookup", status: "not_found")
        #expect(barcode.erasingCustomer(walletAddress: "rAda") == nil)
    }

    @Test("the memory journal rewrites the events in place, seq kept, and counts them")
    func memoryJournal() async throws {
        let journal = MemoryJournal { _ in }
        _ = try await journal.append(contentsOf: [Self.tap("rAda"), Self.tap("rBob"), Self.tap("rAda")])
        #expect(try await journal.eraseCustomer(walletAddress: "rAda") == 2)
        let events = try await journal.recent(limit: 10, kinds: nil)
        #expect(events.map(\.seq) == [1, 2, 3])
        let texts = events.map { String(decoding: $0.json, as: UTF8.self) }
        #expect(!texts[0].contains("ada@example.com") && !texts[2].contains("ada@example.com"))
        #expect(texts[0].contains(#""seq":1,"#) && texts[2].contains(#""seq":3,"#))
        #expect(texts[1].contains("ada@example.com"), "another wallet's event stays whole")
        #expect(try await journal.eraseCustomer(walletAddress: "rAda") == 0)
    }
}
