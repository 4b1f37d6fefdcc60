import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Synchronization
import Testing

/// In-store price barcodes laid out by the config file, through the real daemon: the lookup
/// finds the item with its price, and every event carries what the daemon read from the code.
@Suite("Variable-measure layouts end to end", .heavy, .timeLimit(.minutes(5)))
struct VariableMeasureEndToEndTests {
    /// GB, whose built-in layouts have no 21, with 21 configured: a 5-digit item, a 5-digit
    /// price in pence, no price check digit.
    static let config = """
        catalog:
          region: GB
          variable_measure:
            layouts:
              - prefixes: ["21"]
                item_digits: 5
                price_digits: 5
                decimals: 2
        """

    @Test func aConfiguredLayoutIsReadByTheLookupAndIntoTheEvent() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:scale"], config: Self.config)
        let client = try await daemon.connect()
        // Stored under its item code: 21 12345 00000 and its check digit 8.
        _ = try await client.call(
            "products.upsert", ["product": ["name": "Olives (by price)", "price": "0.00", "barcode": "2112345000008"]])
        let watcher = try await daemon.connect()
        _ = try await watcher.call("events.subscribe", ["kinds": ["barcode"]])
        var notifications = watcher.notifications.makeAsyncIterator()

        // 21 12345 00350 4: £3.50.
        let event = try await client.inject(device: "mock:scale", text: "2112345003504")
        #expect(event.resolution.status == "found")
        #expect(event.resolution.details["product"]?["name"] == "Olives (by price)")
        #expect(event.resolution.details["embedded"] == ["price": "3.50", "currency": "GBP"])
        #expect(event.gtin == "02112345000008")
        #expect(event.embedded == ["price": "3.50", "currency": "GBP"])

        let published = try #require(try await next("scan", from: &notifications).scanEvent())
        #expect(published.seq == event.seq)
        #expect(published.gtin == "02112345000008")
        #expect(published.embedded == ["price": "3.50", "currency": "GBP"])
        let recent = try await client.call("events.recent", ["limit": 1])
        #expect(recent["events"]?.arrayValue?.first?["gtin"] == "02112345000008", "the journal keeps them: \(recent)")

        // A handler outside the daemon, asked before the product lookup, gets them too.
        final class Seen: Sendable { let event = Mutex<JSONValue?>(nil) }
        let seen = Seen()
        client.setRequestHandler { request in
            seen.event.withLock { $0 = request.params["event"] }
            return .value(["status": "seen"])
        }
        _ = try await client.call("handlers.register", ["name": "till-app", "match": ["kinds": ["barcode"]], "priority": 5])
        let handled = try await client.inject(device: "mock:scale", text: "2112345003504")
        #expect(handled.resolution.handler == "till-app")
        let asked = try #require(seen.event.withLock { $0 })
        #expect(asked["gtin"] == "02112345000008")
        #expect(asked["embedded"] == ["price": "3.50", "currency": "GBP"])
        await watcher.close()
        await client.close()
    }

    /// The GB layout's four price digits are minor units of the catalog's currency: the
    /// same label is 12.34 GBP, 1234 JPY, 1.234 KWD.
    @Test(arguments: [("JPY", "1234"), ("KWD", "1.234")])
    func aLabelsPriceIsInTheCatalogsCurrency(currency: String, price: String) async throws {
        let daemon = try await startDaemon(["--mock", "barcode:scale"], config: "catalog:\n  currency: \(currency)\n")
        let client = try await daemon.connect()
        // GB 20: 20 11122 9 1234 6, the item stored under 20 11122 0 0000 5.
        _ = try await client.call("products.upsert", ["product": ["name": "Fish", "price": "0", "barcode": "2011122000005"]])
        let event = try await client.inject(device: "mock:scale", text: "2011122912346")
        #expect(event.resolution.status == "found")
        #expect(event.embedded == ["price": .string(price), "currency": .string(currency)])
        #expect(event.resolution.details["embedded"] == ["price": .string(price), "currency": .string(currency)])
        #expect(event.resolution.details["product"]?["currency"] == .string(currency))
        await client.close()
    }

    @Test func aLayoutWithMoreDecimalsThanTheCurrencyKeepsTheDaemonFromStarting() async throws {
        let harness = try DaemonHarness()
        let config = try harness.write(
            "scanbridge.yaml",
            """
            catalog:
              currency: JPY
              variable_measure:
                layouts:
                  - {prefixes: ["21"], item_digits: 5, price_digits: 5, decimals: 2}
            """)
        let result = try await run(
            "scanbridged",
            [
                "--config", config, "--drivers", "mock", "--socket", harness.directory.appendingPathComponent("s.sock").path,
                "--database", harness.directory.appendingPathComponent("scanbridge.sqlite").path,
            ])
        #expect(result.status != 0)
        #expect(
            result.err.contains("prefix 21 of region GB reads a price with 2 decimals but JPY has 0"), "\(result.err)")
    }
}
