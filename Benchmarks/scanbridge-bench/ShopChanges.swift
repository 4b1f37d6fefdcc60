import Dispatch
import Foundation
import Histogram
import ScanBridgeTesting

/// A change made at one counter, seen at another. No notification tells a client that the
/// catalog changed (subscriptions carry scans and devices), so the other counter is asked:
/// `products.lookup` of the changed product's barcode every millisecond, as a POS would
/// look a price up, until its answer carries the new price.
enum ShopChanges {
    struct Figures {
        /// From the writer's answer to the first lookup at the reader that returned the new
        /// price (0 when the reader had it before the writer answered).
        var fromAnswer = Histogram<UInt64>.nanoseconds()
        /// From the writer's request being sent to the same lookup.
        var fromRequest = Histogram<UInt64>.nanoseconds()
        /// Changes the reader had before the writer answered: the writer answers once its own
        /// replica holds its write, and the reader may follow the shop's log first.
        var beforeAnswer = 0
        var count = 0
    }

    /// `changes` price changes, each of an item drawn uniformly from the catalog, upserted at
    /// `writer` with `products.upsert` (the product whole, as a POS sends it), one at a time,
    /// a random pause apart, as a back office edits them. Each is timed from the writer's
    /// answer to the first lookup at `reader`, polled as `poll` does, whose answer holds the
    /// new price.
    static func propagation(writer: DaemonHarness, reader: DaemonHarness, catalogSize: Int, changes: Int) async throws
        -> Figures
    {
        let writing = try LineSocket(path: writer.socketPath)
        let reading = try LineSocket(path: reader.socketPath)
        var random = SeededRandom(seed: 0x5348_4F50)
        var figures = Figures()
        for change in 0..<changes {
            let index = Int.random(in: 0..<catalogSize, using: &random)
            // A price no item of the catalog has (theirs are at most 5,000.99).
            let price = "\(10_000 + change).00"
            let upsert = Array(upsertLine(index: index, price: price).utf8) + [0x0A]
            let lookup =
                Array(
                    #"{"jsonrpc":"2.0","id":1,"method":"products.lookup","params":{"code":"\#(CatalogScenarios.barcode(index))"}}"#
                        .utf8) + [0x0A]
            let polling = DispatchSemaphore(value: 0)
            async let seen = onAThread("shop-reader") {
                try poll(reading, lookup, until: Array(#""price":"\#(price)""#.utf8), polling: polling)
            }
            let (sent, answered) = try await onAThread("shop-writer") {
                // The reader has looked once, before the change.
                polling.wait()
                let sent = Nanos.now()
                try writing.write(upsert)
                let answer = try writing.readLine()
                let answered = Nanos.now()
                guard answer.contains(Array(#""result""#.utf8)) else {
                    throw BenchmarkFailure(description: "products.upsert answered \(String(decoding: answer, as: UTF8.self))")
                }
                return (sent, answered)
            }
            let seenAt = try await seen
            if seenAt < answered { figures.beforeAnswer += 1 }
            _ = figures.fromAnswer.record(seenAt > answered ? seenAt - answered : 0)
            _ = figures.fromRequest.record(seenAt - sent)
            figures.count += 1
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...100, using: &random)))
        }
        return figures
    }

    /// Looks up until an answer holds `marker`, a millisecond between answer and request;
    /// signals `polling` after the first answer. Returns when the answer that held it was read.
    static func poll(_ socket: LineSocket, _ request: [UInt8], until marker: [UInt8], polling: DispatchSemaphore) throws
        -> UInt64
    {
        let deadline = Nanos.now() + 30_000_000_000
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        var first = true
        // The writer waits for the first answer: it must not wait for ever when there is none.
        defer { if first { polling.signal() } }
        while true {
            try socket.write(request)
            let answer = try socket.readLine()
            let arrived = Nanos.now()
            if first {
                polling.signal()
                first = false
            }
            if answer.contains(marker) { return arrived }
            guard answer.contains(Array(#""status":"found""#.utf8)) else {
                throw BenchmarkFailure(description: "products.lookup answered \(String(decoding: answer, as: UTF8.self))")
            }
            guard arrived < deadline else {
                throw BenchmarkFailure(description: "the change was not seen at the other counter within 30 s")
            }
            nanosleep(&pause, nil)
        }
    }

    /// Catalog item `index` as the CSV has it, at `price`.
    static func upsertLine(index: Int, price: String) -> String {
        let product =
            #"{"id":"\#(ShopCatalog.id(index))","name":"Item \#(index)","price":"\#(price)","currency":"GBP","#
            + #""sku":"SKU-\#(index)","category":"Category \#(index % 40)","barcode":"\#(CatalogScenarios.barcode(index))","#
            + #""trackStock":true,"quantity":\#(index % 100),"lowStockThreshold":5}"#
        return #"{"jsonrpc":"2.0","id":1,"method":"products.upsert","params":{"product":\#(product)}}"#
    }
}
