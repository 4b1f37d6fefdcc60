import Foundation
import GRDB
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore
import Testing

@Suite("SQLiteCardRepository and SQLiteCustomerRepository")
final class SQLiteCardRepositoryTests {
    let file: TemporaryDatabase
    let database: StoreDatabase
    let cards: SQLiteCardRepository
    let customers: SQLiteCustomerRepository

    init() throws {
        file = try TemporaryDatabase()
        database = try StoreDatabase(path: file.path)
        cards = SQLiteCardRepository(database: database)
        customers = SQLiteCustomerRepository(database: database)
    }

    @Test("linking a new card creates its customer with the first-link milestone, in one go")
    func linkNew() async throws {
        let card = try uid("04:a1:b2:c3:d4:e5:f6")
        let outcome = try await cards.link(uid: card, walletAddress: "0xW1", cardName: "Blue", at: time(1_000))
        let expectedCard = Card(uid: card, walletAddress: "0xW1", cardName: "Blue", status: .active, createdAt: time(1_000))
        let expectedCustomer = Customer(
            walletAddress: "0xW1", milestones: Customer.Milestones(firstCardLinkedAt: time(1_000)), createdAt: time(1_000))
        #expect(outcome == .linked(expectedCard, expectedCustomer))
        #expect(try await cards.card(uid: card) == expectedCard)
        #expect(try await customers.customer(walletAddress: "0xW1") == expectedCustomer)
        // The UID is kept as uppercase hex, however it was written.
        #expect(try fetchRow(database, "SELECT uid FROM card")?[0] == "04A1B2C3D4E5F6")
    }

    @Test("linking a card again to its wallet changes nothing")
    func alreadyLinked() async throws {
        let card = try uid("04A1B2C3")
        guard
            case .linked(let linked, let customer) = try await cards.link(
                uid: card, walletAddress: "0xW1", cardName: "Blue", at: time(1_000))
        else {
            Issue.record("not linked")
            return
        }
        let again = try await cards.link(uid: card, walletAddress: "0xW1", cardName: "Red", at: time(2_000))
        #expect(again == .alreadyLinked(linked, customer))
        #expect(try await cards.card(uid: card)?.cardName == "Blue")
    }

    @Test("a card linked to another wallet is a conflict that changes nothing")
    func conflict() async throws {
        let card = try uid("04A1B2C3")
        _ = try await cards.link(uid: card, walletAddress: "0xW1", cardName: nil, at: time(1_000))
        let outcome = try await cards.link(uid: card, walletAddress: "0xW2", cardName: nil, at: time(2_000))
        #expect(outcome == .conflict(Card(uid: card, walletAddress: "0xW1", createdAt: time(1_000))))
        #expect(try await customers.customer(walletAddress: "0xW2") == nil, "no customer made for the loser")
        #expect(try await cards.cards(walletAddress: "0xW2").isEmpty)
        #expect(try rowCount(database, "card") == 1)
    }

    @Test("the first-link milestone is set once: a second card keeps the first time")
    func milestoneOnce() async throws {
        _ = try await cards.link(uid: uid("04A1B2C3"), walletAddress: "0xW1", cardName: nil, at: time(1_000))
        let second = try await cards.link(uid: uid("04D4E5F6"), walletAddress: "0xW1", cardName: nil, at: time(5_000))
        guard case .linked(_, let customer) = second else {
            Issue.record("second card not linked: \(second)")
            return
        }
        #expect(customer.milestones.firstCardLinkedAt == time(1_000))
        #expect(customer.createdAt == time(1_000))
        // Still so after the first card is gone and another comes.
        #expect(try await cards.unlink(uid: uid("04A1B2C3")))
        #expect(try await cards.unlink(uid: uid("04D4E5F6")))
        _ = try await cards.link(uid: uid("04ABCDEF"), walletAddress: "0xW1", cardName: nil, at: time(9_000))
        #expect(try await customers.customer(walletAddress: "0xW1")?.milestones.firstCardLinkedAt == time(1_000))
    }

    @Test("linking to a known customer keeps what it has and sets the milestone")
    func linkKnownCustomer() async throws {
        _ = try await customers.upsert(Customer(walletAddress: "0xW1", name: "Ada", createdAt: time(100)))
        let outcome = try await cards.link(uid: uid("04A1B2C3"), walletAddress: "0xW1", cardName: nil, at: time(1_000))
        guard case .linked(_, let customer) = outcome else {
            Issue.record("not linked: \(outcome)")
            return
        }
        #expect(
            customer
                == Customer(
                    walletAddress: "0xW1", name: "Ada", milestones: Customer.Milestones(firstCardLinkedAt: time(1_000)),
                    createdAt: time(100)))
    }

    @Test("setStatus changes the status and returns the card; nil for an unknown card")
    func setStatus() async throws {
        let card = try uid("04A1B2C3")
        _ = try await cards.link(uid: card, walletAddress: "0xW1", cardName: "Blue", at: time(1_000))
        let blocked = try await cards.setStatus(uid: card, status: .blocked)
        #expect(blocked == Card(uid: card, walletAddress: "0xW1", cardName: "Blue", status: .blocked, createdAt: time(1_000)))
        #expect(try await cards.card(uid: card)?.status == .blocked)
        #expect(try await cards.setStatus(uid: card, status: .inactive)?.status == .inactive)
        #expect(try await cards.setStatus(uid: uid("04FFFFFF"), status: .blocked) == nil)
        // A blocked card stays linked: linking it elsewhere is still a conflict.
        let elsewhere = try await cards.link(uid: card, walletAddress: "0xW2", cardName: nil, at: time(2_000))
        #expect(
            elsewhere
                == .conflict(Card(uid: card, walletAddress: "0xW1", cardName: "Blue", status: .inactive, createdAt: time(1_000))))
    }

    @Test("unlink removes the card, keeps the customer, and frees the UID")
    func unlink() async throws {
        let card = try uid("04A1B2C3")
        _ = try await cards.link(uid: card, walletAddress: "0xW1", cardName: nil, at: time(1_000))
        #expect(try await cards.unlink(uid: card))
        #expect(try await cards.unlink(uid: card) == false)
        #expect(try await cards.card(uid: card) == nil)
        #expect(try await customers.customer(walletAddress: "0xW1") != nil)
        let relinked = try await cards.link(uid: card, walletAddress: "0xW2", cardName: nil, at: time(2_000))
        guard case .linked(let moved, _) = relinked else {
            Issue.record("not relinked: \(relinked)")
            return
        }
        #expect(moved.walletAddress == "0xW2")
    }

    @Test("cards(walletAddress:) lists a wallet's cards or all of them, oldest first")
    func listing() async throws {
        _ = try await cards.link(uid: uid("04000003"), walletAddress: "0xW1", cardName: nil, at: time(3_000))
        _ = try await cards.link(uid: uid("04000001"), walletAddress: "0xW1", cardName: nil, at: time(1_000))
        _ = try await cards.link(uid: uid("04000002"), walletAddress: "0xW2", cardName: nil, at: time(2_000))
        #expect(try await cards.cards(walletAddress: "0xW1").map(\.uid.hex) == ["04000001", "04000003"])
        #expect(try await cards.cards(walletAddress: nil).map(\.uid.hex) == ["04000001", "04000002", "04000003"])
        #expect(try await cards.cards(walletAddress: "0xNobody").isEmpty)
    }

    @Test("identify gives the card and its customer in one read")
    func identify() async throws {
        let card = try uid("04A1B2C3D4E5F6")
        _ = try await cards.link(uid: card, walletAddress: "0xW1", cardName: nil, at: time(1_000))
        let found = try await cards.identify(uid: card)
        #expect(found?.card.walletAddress == "0xW1")
        #expect(found?.customer?.walletAddress == "0xW1")
        #expect(found?.customer?.milestones.firstCardLinkedAt == time(1_000))
        #expect(try await cards.identify(uid: uid("04FFFFFF")) == nil)
    }

    @Test("customer upsert: given fields replace, nil keeps; createdAt and set milestones stay")
    func customerUpsert() async throws {
        let first = Customer(
            walletAddress: "0xW1", name: "Ada", email: "ada@example.com",
            milestones: Customer.Milestones(firstPaymentAt: time(500)), createdAt: time(100))
        #expect(try await customers.upsert(first) == first)
        let update = Customer(
            walletAddress: "0xW1", email: "ada@lovelace.org", phone: "+44 20 7946 0000",
            milestones: Customer.Milestones(firstPaymentAt: time(900), autoSignEnabledAt: time(950)), createdAt: time(999))
        let stored = try await customers.upsert(update)
        let expected = Customer(
            walletAddress: "0xW1", name: "Ada", email: "ada@lovelace.org", phone: "+44 20 7946 0000",
            milestones: Customer.Milestones(firstPaymentAt: time(500), autoSignEnabledAt: time(950)), createdAt: time(100))
        #expect(stored == expected)
        #expect(try await customers.customer(walletAddress: "0xW1") == expected)
        #expect(try await customers.customer(walletAddress: "0xW2") == nil)
        #expect(try rowCount(database, "customer") == 1)
    }

    @Test("Repositories.sqlite wires the four repositories to one database")
    func bundle() async throws {
        let repositories = Repositories.sqlite(database)
        _ = try await repositories.cards.link(uid: uid("04A1B2C3"), walletAddress: "0xW1", cardName: nil, at: time(1))
        #expect(try await repositories.customers.customer(walletAddress: "0xW1") != nil)
        _ = try await repositories.products.upsert([product("prod_1", sku: "S1")])
        #expect(try await repositories.products.count() == 1)
        _ = try await repositories.orders.upsert([RepairOrder(id: "ord_1", reference: "RM-1", status: "open", createdAt: time(1))]
        )
        #expect(try await repositories.orders.order(reference: "rm-1")?.id == "ord_1")
    }
}

/// Secure cards in the local database: their security kept with the link, and read counters
/// accepted only when they rise.
@Suite struct SQLiteSecureCardTests {
    @Test func aLinkKeepsItsSecurityAndACounterIsAcceptedOnlyWhenItRises() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secure-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cards = SQLiteCardRepository(database: try StoreDatabase(path: folder.appendingPathComponent("db.sqlite").path))
        let uid = try NFCUID(parsing: "04DE5F1EACC040")
        let outcome = try await cards.link(
            uid: uid, walletAddress: "rAda", cardName: nil, security: .secure, at: Date(timeIntervalSince1970: 1))
        guard case .linked(let card, _) = outcome else { throw CancellationError() }
        #expect(card.security == .secure && card.wire["security"] == .string("secure"))
        #expect(try await cards.card(uid: uid)?.security == .secure)
        _ = try await cards.link(uid: try NFCUID(parsing: "04A1B2C3"), walletAddress: "rAda", cardName: nil, at: Date())
        #expect(try await cards.card(uid: try NFCUID(parsing: "04A1B2C3"))?.security == .uid, "uid by default")

        #expect(try await cards.acceptReadCounter(uid: uid, counter: 3))
        #expect(try await !cards.acceptReadCounter(uid: uid, counter: 3), "the same message again")
        #expect(try await !cards.acceptReadCounter(uid: uid, counter: 2))
        #expect(try await cards.acceptReadCounter(uid: uid, counter: 4))
        #expect(try await cards.acceptReadCounter(uid: try NFCUID(parsing: "04000000000001"), counter: 0), "a tag of its own")
    }

    @Test func aCounterWaitsForNoFsyncOfItsOwnAndTheJournalsCommitsStillDo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secure-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try StoreDatabase(path: folder.appendingPathComponent("db.sqlite").path, durability: .full)
        let cards = SQLiteCardRepository(database: database)
        #expect(try await cards.acceptReadCounter(uid: try NFCUID(parsing: "04DE5F1EACC040"), counter: 1))
        #expect(try database.writerSynchronous() == 2, "FULL again for the journal's next commit")
    }
}
