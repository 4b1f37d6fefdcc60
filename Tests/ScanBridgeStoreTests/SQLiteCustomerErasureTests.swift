import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore
import Testing

@Suite("Erasing a customer from the SQLite store and journal")
struct SQLiteCustomerErasureTests {
    /// A tap resolved with the wallet's customer, as the card-link handler would resolve it.
    static func tap(_ index: Int, wallet: String) -> ScanEvent {
        var tap = event(index, kind: .nfc, device: "mock:nfc-1")
        tap.resolution = Resolution(
            handler: "card-link", status: "identified",
            details: [
                "card": ["uid": "04A1B2C3", "uidDisplay": "04:A1:B2:C3", "walletAddress": .string(wallet), "cardName": "Mine"],
                "customer": ["walletAddress": .string(wallet), "name": "Ada", "email": "ada@example.com", "phone": "+44 1"],
            ])
        return tap
    }

    @Test("the wallet's events are rewritten in place and stay so after a reopen; others are untouched")
    func journal() async throws {
        let file = try TemporaryDatabase()
        let journal = try openJournal(file.path)
        _ = try await journal.append(contentsOf: [
            Self.tap(1, wallet: "rAda"), event(2), Self.tap(3, wallet: "rBob"), Self.tap(4, wallet: "rAda"),
        ])
        #expect(try await journal.eraseCustomer(walletAddress: "rAda") == 2)
        #expect(try await journal.eraseCustomer(walletAddress: "rAda") == 0, "a second erase finds nothing left")
        #expect(try await journal.eraseCustomer(walletAddress: "rNobody") == 0)

        let reopened = try openJournal(file.path)
        let events = try await reopened.recent(limit: 10, kinds: nil)
        #expect(events.map(\.seq) == [1, 2, 3, 4])
        let decoded = try events.map(decode)
        for index in [0, 3] {
            let customer = decoded[index].resolution.details["customer"]
            #expect(customer?["name"] == .null && customer?["email"] == .null && customer?["phone"] == .null)
            #expect(decoded[index].resolution.details["card"]?["cardName"] == .null)
            #expect(decoded[index].seq == UInt64(index + 1))
        }
        #expect(decoded[2].resolution.details["customer"]?["email"] == "ada@example.com", "another wallet's event stays")
        #expect(decoded[1].text == "item 2")
    }

    @Test("the customer's record and cards go, in one transaction; another customer's stay")
    func repositories() async throws {
        let file = try TemporaryDatabase()
        let database = try StoreDatabase(path: file.path)
        let cards = SQLiteCardRepository(database: database)
        let customers = SQLiteCustomerRepository(database: database)
        _ = try await customers.upsert(Customer(walletAddress: "rAda", name: "Ada", email: "ada@example.com", createdAt: time(1)))
        _ = try await cards.link(uid: try uid("04A1B2C3"), walletAddress: "rAda", cardName: nil, at: time(2))
        _ = try await cards.link(uid: try uid("04A1B2C4"), walletAddress: "rAda", cardName: nil, at: time(3))
        _ = try await cards.link(uid: try uid("04A1B2C5"), walletAddress: "rBob", cardName: nil, at: time(4))

        #expect(try await customers.erase(walletAddress: "rAda") == 2)
        #expect(try await customers.customer(walletAddress: "rAda") == nil)
        #expect(try await cards.cards(walletAddress: "rAda").isEmpty)
        #expect(try await cards.card(uid: try uid("04A1B2C3")) == nil)
        #expect(try await customers.customer(walletAddress: "rBob") != nil)
        #expect(try await cards.cards(walletAddress: "rBob").count == 1)
        #expect(try await customers.erase(walletAddress: "rAda") == 0, "erasing again erases nothing")
    }
}
