import Foundation
import ScanBridgeCodes
import ScanBridgeTesting

/// The shop's people and work beside its catalog: 10,000 customers each with a linked card,
/// 10,000 repair orders with their devices, and 100 items priced at the counter. The mix's
/// taps, order labels and price codes are spread over them, so that each reads one row among
/// many, as a shop's would, rather than the demo's one card and two orders over and over.
enum CounterPeople {
    static let customers = 10_000
    static let orders = 10_000
    static let pricedItems = 100

    /// Customer `index`'s card: a 7-byte NXP UID (`04…`).
    static func cardUID(_ index: Int) -> String {
        "04" + hex(index, digits: 12)
    }

    static func orderID(_ index: Int) -> String { "ord_b" + hex(index, digits: 6) }

    /// What a repair bench's camera reads for order `index`.
    static func orderLabel(_ index: Int) -> String { "https://app.repairminder.com/orders/" + orderID(index) }

    /// The catalog's code of priced item `index`: GS1 UK's prefix 20, a 5-digit item reference,
    /// the price zeroed (`2012345000007`), as a shop lists such items.
    static func pricedItemBarcode(_ index: Int) -> String {
        let data = reference(index) + "00000"
        return data + String(GTIN.checkDigit(forData: data)!)
    }

    /// The label a scale prints for priced item `index` at `pence` (1…9999): the price, its
    /// price check digit and the code's check digit.
    static func priceCode(item index: Int, pence: Int) -> String {
        let price = String(repeating: "0", count: 4 - String(pence).count) + String(pence)
        let data = reference(index) + String(PriceCheckDigit.fourDigit(price)!) + price
        return data + String(GTIN.checkDigit(forData: data)!)
    }

    /// Adds them to the store of the daemon running there: the cards linked and the items
    /// upserted over its socket in batches, the orders imported with the CLI from a file.
    static func add(to daemon: DaemonHarness, directory: URL) async throws {
        let file = directory.appendingPathComponent("bench-orders.json")
        try Data(ordersJSON().utf8).write(to: file)
        try await CounterStores.runCLI(["orders", "import", file.path], socketPath: daemon.socketPath)
        try? FileManager.default.removeItem(at: file)
        let cards = (0..<customers).map { index in
            #"{"jsonrpc":"2.0","id":\#(index),"method":"cards.link","params":{"uid":"\#(cardUID(index))","#
                + #""walletAddress":"rBenchWallet\#(index)","cardName":"Customer \#(index)'s card"}}"#
        }
        let items = (0..<pricedItems).map { index in
            #"{"name":"Deli item \#(index)","price":"0.00","currency":"GBP","barcode":"\#(pricedItemBarcode(index))"}"#
        }
        let upsert =
            #"{"jsonrpc":"2.0","id":0,"method":"products.upsert","params":{"products":[\#(items.joined(separator: ","))]}}"#
        let socket = try LineSocket(path: daemon.socketPath)
        try await onAThread("counter-people") {
            // 50 answers to a line: within the benchmark's line reader (64 KiB).
            var batches = stride(from: 0, to: cards.count, by: 50).map {
                "[" + cards[$0..<min(cards.count, $0 + 50)].joined(separator: ",") + "]"
            }
            batches.append(upsert)
            for batch in batches {
                try socket.write(Array(batch.utf8) + [0x0A])
                let answer = String(decoding: try socket.readLine(), as: UTF8.self)
                guard !answer.contains(#""error":"#) else {
                    throw BenchmarkFailure(description: "adding the shop's people failed: \(answer.prefix(300))")
                }
            }
        }
    }

    /// The orders as `scanbridge orders import` reads them: one or two devices each.
    static func ordersJSON() -> String {
        let orders = (0..<orders).map { index in
            let devices = (0..<(1 + index % 2)).map { device in
                #"{"id":"dev_b\#(hex(index * 2 + device, digits: 6))","make":"Apple","model":"iPhone 13","#
                    + #""serial":"SN\#(hex(index * 2 + device, digits: 8))","status":"received"}"#
            }
            return #"{"id":"\#(orderID(index))","reference":"RB-\#(index)","status":"in_progress","#
                + #""clientId":"cli_b\#(index)","clientName":"Customer \#(index)","#
                + #""createdAt":"2026-11-20T15:12:00.000Z","devices":[\#(devices.joined(separator: ","))]}"#
        }
        return "[\n" + orders.joined(separator: ",\n") + "\n]\n"
    }

    /// `20` and a 5-digit item reference from 11200 up, clear of the demo's cheddar (11122).
    private static func reference(_ index: Int) -> String { "20" + String(11_200 + index) }

    private static func hex(_ value: Int, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
