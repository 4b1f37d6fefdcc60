import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// A daemon with its gateway on a loopback port serving the repository's page, a mock till,
/// a catalog and a reader token (with no origin of its own: the page's is the gateway's;
/// `token(role:)` makes others). `restart()` brings it back on the same port and database, so a
/// page that was open reconnects to it.
final class CounterDaemon: Sendable {
    let harness: DaemonHarness
    let port: Int
    let secret: String
    var origin: String { "http://127.0.0.1:\(port)" }

    static let products: [JSONValue] = [
        [
            "name": "Cappuccino", "price": "3.50", "currency": "GBP", "barcode": "5901234123457",
            "trackStock": true, "quantity": 50, "lowStockThreshold": 10,
        ],
        ["name": "Matcha", "price": "500", "currency": "JPY", "barcode": "4006381333931"],
        // Priced at the counter: its labels carry the price (GS1 UK's prefix 20).
        ["name": "Cheddar", "price": "0.00", "currency": "GBP", "barcode": "2011122000005"],
    ]

    private init(harness: DaemonHarness, port: Int, secret: String) {
        self.harness = harness
        self.port = port
        self.secret = secret
    }

    /// `origins`: pages of other origins allowed to call it (`--allow-origin`).
    static func start(allowing origins: [String] = []) async throws -> CounterDaemon {
        let allowed = origins.flatMap { ["--allow-origin", $0] }
        let first = try DaemonHarness(arguments: ["--mock", "barcode:till-1", "--http", "127.0.0.1:0"] + allowed)
        try await first.start()
        let port = try #require(first.gatewayAddresses.first?.split(separator: ":").last.flatMap { Int($0) })
        // Later starts take the same port, so that a page that was open finds the daemon again.
        try await first.stop()
        let harness = try DaemonHarness.reusing(
            first, arguments: ["--mock", "barcode:till-1", "--http", "127.0.0.1:\(port)"] + allowed)
        try await harness.start()
        let client = try await harness.connect()
        _ = try await client.call("products.upsert", ["products": .array(products)])
        await client.close()
        return CounterDaemon(harness: harness, port: port, secret: try await token(role: "reader", on: harness))
    }

    func restart() async throws {
        try await harness.stop()
        try await harness.start()
    }

    /// Injects `text` on the till through the Unix socket and returns the event's seq.
    @discardableResult
    func inject(_ text: String, device: String = "mock:till-1") async throws -> Int64 {
        let answer = try await call("scan.inject", ["device": .string(device), "text": .string(text)])
        guard let seq = answer["event"]?["seq"]?.intValue else {
            throw UnexpectedAnswer(description: "scan.inject answered no seq: \(answer)")
        }
        return seq
    }

    /// Taps a card with `uid` on an NFC mock and returns the event's resolution.
    func tap(_ uid: String, on device: String) async throws -> JSONValue {
        let answer = try await call("scan.inject", ["device": .string(device), "uid": .string(uid)])
        guard let resolution = answer["event"]?["resolution"] else {
            throw UnexpectedAnswer(description: "scan.inject answered no resolution: \(answer)")
        }
        return resolution
    }

    /// A further token for the page, of `role`.
    func token(role: String) async throws -> String {
        try await Self.token(role: role, on: harness)
    }

    private static func token(role: String, on harness: DaemonHarness) async throws -> String {
        let client = try await harness.connect()
        let created = try await client.call(
            "tokens.create", ["name": .string("counter page test, \(role)"), "role": .string(role)])
        await client.close()
        guard let secret = created["secret"]?.stringValue else {
            throw UnexpectedAnswer(description: "tokens.create answered no secret: \(created)")
        }
        return secret
    }

    func call(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
        let client = try await harness.connect()
        do {
            let result = try await client.call(method, params)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }
}

/// The daemon answered without what the test needs from it.
struct UnexpectedAnswer: Error, CustomStringConvertible {
    let description: String
}
