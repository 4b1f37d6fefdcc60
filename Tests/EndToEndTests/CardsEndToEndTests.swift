import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// Cards, customers and the `card-link` handler, through the real daemon's socket.
@Suite("Cards end to end", .heavy, .timeLimit(.minutes(5)))
struct CardsEndToEndTests {
    static let uid = "04A1B2C3D4E5F6"
    static let wallet = "rN7nWalletOne"

    @Test func linkIdentifiesTheCustomerAndSetsTheFirstLinkMilestoneOnce() async throws {
        let daemon = try await startDaemon(["--mock", "nfc:door"])
        let client = try await daemon.connect()
        let linked = try await client.call("cards.link", ["uid": "04:a1:b2:c3:d4:e5:f6", "walletAddress": .string(Self.wallet)])
        #expect(linked["card"]?["uid"] == .string(Self.uid) && linked["card"]?["displayName"] == "Card 5:F6")
        #expect(linked["card"]?["status"] == "active")
        let firstLink = try #require(linked["customer"]?["milestones"]?["firstCardLinkedAt"]?.stringValue)
        let again = try await client.call("cards.link", ["uid": .string(Self.uid), "walletAddress": .string(Self.wallet)])
        #expect(again["card"] == linked["card"], "linking to the same wallet is idempotent")
        let second = try await client.call(
            "cards.link", ["uid": "04112233", "walletAddress": .string(Self.wallet), "cardName": "Keyring"])
        #expect(second["card"]?["displayName"] == "Keyring")
        #expect(second["customer"]?["milestones"]?["firstCardLinkedAt"] == .string(firstLink))
        await expectRPCError(RPCError.conflict) {
            _ = try await client.call("cards.link", ["uid": .string(Self.uid), "walletAddress": "rOtherWallet"])
        }
        #expect(try await client.call("cards.list", ["walletAddress": .string(Self.wallet)])["cards"]?.arrayValue?.count == 2)

        let tap = try await client.inject(device: "mock:door", uid: Self.uid)
        #expect(tap.resolution.handler == "card-link" && tap.resolution.status == "identified")
        #expect(tap.resolution.details["customer"]?["walletAddress"] == .string(Self.wallet))

        for (status, expected) in [("blocked", "blocked"), ("inactive", "inactive"), ("active", "identified")] {
            let card = try await client.call("cards.setStatus", ["uid": .string(Self.uid), "status": .string(status)])
            #expect(card["card"]?["status"] == .string(status))
            let event = try await client.inject(device: "mock:door", uid: Self.uid)
            #expect(event.resolution.status == expected)
            #expect((event.resolution.details["customer"] != nil) == (expected == "identified"))
        }
        _ = try await client.call("cards.unlink", ["uid": .string(Self.uid)])
        #expect(try await client.inject(device: "mock:door", uid: Self.uid).resolution.status == "unknown")
        await expectRPCError(RPCError.notFound) { _ = try await client.call("cards.get", ["uid": .string(Self.uid)]) }
        await client.close()
    }

    @Test func anArmLinksTheNextUnknownCardOnceWhateverTheOutcome() async throws {
        let daemon = try await startDaemon(["--mock", "nfc:door", "--mock", "nfc:till"])
        let client = try await daemon.connect()
        let armed = try await client.call("cards.arm", ["walletAddress": "rArmed", "cardName": "Blue", "device": "mock:till"])
        let token = try #require(armed["armed"]?.stringValue)
        #expect(armed["expiresAt"]?.stringValue?.hasSuffix("Z") == true)
        // A tap on another reader does not use this arm.
        #expect(try await client.inject(device: "mock:door", uid: "04000001").resolution.status == "unknown")
        let linked = try await client.inject(device: "mock:till", uid: "04000002")
        #expect(linked.resolution.status == "linked" && linked.resolution.details["card"]?["cardName"] == "Blue")
        #expect(linked.resolution.details["customer"]?["milestones"]?["firstCardLinkedAt"]?.stringValue != nil)
        #expect(try await client.inject(device: "mock:till", uid: "04000003").resolution.status == "unknown", "used up")
        await expectRPCError(RPCError.notFound) { _ = try await client.call("cards.disarm", ["armed": .string(token)]) }

        // With two readers attached, an arm names its reader.
        let unnamed = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("cards.arm", ["walletAddress": "rSomeoneElse"])
        }
        #expect(unnamed?.data?["field"] == "device")
        #expect(unnamed?.message.contains("mock:door, mock:till") == true, "\(unnamed?.message ?? "")")

        // An arm used by a card linked elsewhere ends in conflict, and is used up all the same.
        _ = try await client.call("cards.arm", ["walletAddress": "rSomeoneElse", "device": "mock:door"])
        let conflict = try await client.inject(device: "mock:door", uid: "04000002")
        #expect(conflict.resolution.status == "conflict")
        #expect(try await client.inject(device: "mock:door", uid: "04000004").resolution.status == "unknown")

        // Expired and disarmed arms link nothing.
        _ = try await client.call("cards.arm", ["walletAddress": "rLate", "device": "mock:door", "timeoutMs": 100])
        // Past the arm's 100 ms: only a tap shows an arm expired, and a tap would use a live one.
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await client.inject(device: "mock:door", uid: "04000005").resolution.status == "unknown")
        let another = try await client.call("cards.arm", ["walletAddress": "rLate", "device": "mock:door"])
        _ = try await client.call("cards.disarm", ["armed": another["armed"] ?? .null])
        #expect(try await client.inject(device: "mock:door", uid: "04000005").resolution.status == "unknown")
        await client.close()
    }

    @Test func erasingACustomerTakesThemOutOfTheStoreAndTheJournal() async throws {
        let daemon = try await startDaemon(["--mock", "nfc:door"])
        let client = try await daemon.connect()
        _ = try await client.call(
            "customers.upsert", ["customer": ["walletAddress": "rAda", "name": "Ada", "email": "ada@example.com"]])
        _ = try await client.call("cards.link", ["uid": .string(Self.uid), "walletAddress": "rAda", "cardName": "Ada's"])
        _ = try await client.call("cards.link", ["uid": "04112233", "walletAddress": "rAda"])
        _ = try await client.call("cards.link", ["uid": "04445566", "walletAddress": "rBob"])
        for uid in [Self.uid, "04445566", Self.uid] { _ = try await client.inject(device: "mock:door", uid: uid) }
        let armed = try await client.call("cards.arm", ["walletAddress": "rAda"])

        let socket = ["--socket", daemon.socketPath]
        let erase = try await run("scanbridge", ["customers", "erase", "rAda", "--json"] + socket)
        #expect(erase.status == 0, "\(erase.err)")
        let answer = try JSONValue(parsing: Array(erase.out.utf8))
        #expect(answer == ["erased": true, "cardsUnlinked": 2, "eventsRewritten": 2])

        await expectRPCError(RPCError.notFound) { _ = try await client.call("customers.get", ["walletAddress": "rAda"]) }
        #expect(try await client.call("cards.list", ["walletAddress": "rAda"])["cards"] == [])
        await expectRPCError(RPCError.notFound) { _ = try await client.call("cards.disarm", ["armed": armed["armed"] ?? .null]) }
        let events = try #require(try await client.call("events.recent")["events"]?.arrayValue)
        #expect(events.count == 3)
        for index in [0, 2] {
            #expect(events[index]["resolution"]?["customer"]?["name"] == .null)
            #expect(events[index]["resolution"]?["customer"]?["email"] == .null)
            #expect(events[index]["resolution"]?["card"]?["cardName"] == .null)
            #expect(events[index]["uid"] == .string(Self.uid), "the scan itself stays")
        }
        #expect(events[1]["resolution"]?["customer"]?["walletAddress"] == "rBob")
        #expect(try await client.inject(device: "mock:door", uid: Self.uid).resolution.status == "unknown")

        let again = try await client.call("customers.erase", ["walletAddress": "rAda"])
        #expect(again == ["erased": true, "cardsUnlinked": 0, "eventsRewritten": 0])
        await client.close()
    }

    @Test func oneReaderNeedsNoDeviceAndArmsAreCapped() async throws {
        let daemon = try await startDaemon(["--mock", "nfc:door", "--mock", "barcode:till"])
        let client = try await daemon.connect()
        for index in 0..<64 {
            _ = try await client.call("cards.arm", ["walletAddress": .string("rWallet\(index)")])
        }
        let refused = await expectRPCError(RPCError.overloaded) {
            _ = try await client.call("cards.arm", ["walletAddress": "rOneTooMany"])
        }
        #expect(refused?.message.contains("64") == true)
        #expect(try await client.inject(device: "mock:door", uid: "04000001").resolution.status == "linked")
        _ = try await client.call("cards.arm", ["walletAddress": "rOneTooMany"])
        await client.close()
    }

    @Test func badCardInputGetsClearErrors() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till"])
        let client = try await daemon.connect()
        let short = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("cards.link", ["uid": "04A1B2", "walletAddress": "rX"])
        }
        #expect(short?.data?["field"] == "uid")
        await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("cards.setStatus", ["uid": "04A1B2C3", "status": "lost"])
        }
        await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("cards.arm", ["walletAddress": "rX", "device": "mock:till"])
        }
        await expectRPCError(RPCError.notFound) {
            _ = try await client.call("cards.arm", ["walletAddress": "rX", "device": "mock:none"])
        }
        await expectRPCError(RPCError.notFound) { _ = try await client.call("customers.get", ["walletAddress": "rNobody"]) }
        await client.close()
    }

    @Test func customersAreUpsertedWithoutLosingTheirMilestones() async throws {
        let daemon = try await startDaemon()
        let client = try await daemon.connect()
        _ = try await client.call("cards.link", ["uid": "04A1B2C3", "walletAddress": "rAda"])
        let upserted = try await client.call(
            "customers.upsert",
            [
                "customer": [
                    "walletAddress": "rAda", "name": "Ada Lovelace", "email": "ada@example.com",
                    "milestones": ["firstPaymentAt": "2026-11-21T09:40:00.123Z"],
                ]
            ])
        let customer = try #require(upserted["customer"])
        #expect(customer["name"] == "Ada Lovelace" && customer["phone"] == .null)
        #expect(customer["milestones"]?["firstPaymentAt"] == "2026-11-21T09:40:00.123Z")
        #expect(customer["milestones"]?["firstCardLinkedAt"]?.stringValue != nil)
        #expect(try await client.call("customers.get", ["walletAddress": "rAda"])["customer"] == customer)
        await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("customers.upsert", ["customer": ["walletAddress": "rAda", "email": "not an email"]])
        }
        await client.close()
    }
}
