import Foundation
import GRDB
import Histogram
import ProductLookup
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore
import ScanBridgeTesting

/// The catalog at shop scale: a million products imported from CSV through the CLI, then
/// looked up through the socket and in process.
enum CatalogScenarios {
    /// The EAN-13 of catalog item `index`: prefix 50 (a GS1 UK company prefix range, no
    /// in-store price/weight prefix), the index, and its check digit.
    static func barcode(_ index: Int) -> String {
        let digits = String(index)
        let data = "50" + String(repeating: "0", count: 10 - digits.count) + digits
        return data + String(GTIN.checkDigit(forData: data)!)
    }

    /// Writes a CSV of `count` products, streamed in 1 MB chunks.
    static func writeCatalog(to url: URL, count: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let file = try FileHandle(forWritingTo: url)
        defer { try? file.close() }
        var chunk = "name,price,sku,category,barcode,trackStock,quantity,lowStockThreshold\n"
        for index in 0..<count {
            chunk +=
                "Item \(index),\(index % 5000 + 1).\(index % 10)9,SKU-\(index),Category \(index % 40),\(barcode(index)),true,\(index % 100),5\n"
            if chunk.utf8.count > 1 << 20 {
                try file.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        try file.write(contentsOf: Data(chunk.utf8))
    }

    /// The import's baseline: the same rows inserted into the daemon's own schema by a bare
    /// loop over one prepared statement, 10,000 rows a transaction, in this process; seconds.
    /// The CSV has no storeId, so its products have no store (`''` in the table), found by
    /// the daemon with no store configured that the scenarios start.
    static func bareInserts(count: Int, directory: URL) async throws -> Double {
        let path = directory.appendingPathComponent("bare-inserts.sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        return try await onAThread("bare-inserts") {
            let database = try StoreDatabase(path: path)
            let started = Nanos.now()
            for first in stride(from: 0, to: count, by: 10_000) {
                try database.pool.write { db in
                    let insert = try db.makeStatement(
                        sql: """
                            INSERT INTO product (id, storeId, name, priceMinor, currency, sku, category, barcode, gtin,
                                trackStock, quantity, lowStockThreshold, allowNegativeStock, createdAtMs, updatedAtMs)
                            VALUES (?, '', ?, ?, 'GBP', ?, ?, ?, ?, 1, ?, 5, 0, 0, 0)
                            """)
                    for index in first..<min(first + 10_000, count) {
                        let barcode = barcode(index)
                        try insert.execute(arguments: [
                            "prod_\(index)", "Item \(index)", (index % 5000 + 1) * 100 + (index % 10) * 10 + 9,
                            "SKU-\(index)", "Category \(index % 40)", barcode, "0" + barcode, index % 100,
                        ])
                    }
                }
            }
            return Double(Nanos.now() - started) / 1e9
        }
    }

    /// `scanbridge products import` of the file: seconds taken, and the peak resident memory
    /// of the CLI and of the daemon (MB), sampled from /proc while it runs.
    static func importCatalog(_ url: URL, daemon: DaemonHarness) async throws -> (
        seconds: Double, cliPeakMB: Double, daemonPeakMB: Double
    ) {
        let process = Process()
        process.executableURL = DaemonHarness.productsDirectory.appendingPathComponent("scanbridge")
        process.arguments = ["products", "import", url.path, "--socket", daemon.socketPath]
        process.standardOutput = FileHandle.nullDevice
        let started = Nanos.now()
        try process.run()
        var cliPeak = 0.0
        while process.isRunning {
            cliPeak = max(cliPeak, ProcessStat.megabytes("VmHWM", of: process.processIdentifier))
            try await Task.sleep(for: .milliseconds(20))
        }
        let seconds = Double(Nanos.now() - started) / 1e9
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure(description: "scanbridge products import exited with \(process.terminationStatus)")
        }
        return (seconds, cliPeak, ProcessStat.megabytes("VmHWM", of: daemon.pid ?? 0))
    }

    /// Returns once the daemon has used no CPU for a second (waiting a minute at most): started
    /// on a large catalog, it loads the catalog's keys first, which a daemon that has been
    /// running has done long before.
    static func settle(daemon: DaemonHarness) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var last = -1.0
        var quiet = 0
        while quiet < 5, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            guard let cpu = ProcessStat.cpuSeconds(of: daemon.pid ?? 0) else {
                throw BenchmarkFailure(description: "scanbridged ended")
            }
            quiet = cpu == last ? quiet + 1 : 0
            last = cpu
        }
    }

    /// Round trips of `products.lookup` for random catalog barcodes through the socket; with
    /// `hello`, of `bridge.hello` instead (the daemon's own floor for a request).
    static func socketLookups(socketPath: String, catalogSize: Int, count: Int, hello: Bool = false) async throws
        -> Histogram<UInt64>
    {
        let requests = (0..<(count + count / 10)).map { index in
            hello
                ? #"{"jsonrpc":"2.0","id":\#(index),"method":"bridge.hello"}"#
                : #"{"jsonrpc":"2.0","id":\#(index),"method":"products.lookup","params":{"code":"\#(barcode(Int.random(in: 0..<catalogSize)))"}}"#
        }
        return try await RoundTrips.measure(
            socketPath: socketPath, requests: requests, warmup: count / 10,
            expecting: hello ? #""result""# : #""status":"found""#)
    }

    /// `ProductLookup.lookup(code:)` on the daemon's database file, in this process; and, as
    /// the floor, the same loop around an empty async call.
    /// `catalogSize` is the range codes are drawn from, uniformly: the whole catalog, or the
    /// first products only (a shop's best sellers, whose pages stay in memory).
    /// `unknown`: labels no product has (`bench-N`, as the throughput benchmark scans).
    /// Measured once the catalog's keys are loaded, as in a daemon that has been running: the
    /// load reads the whole catalog and would share the cores with the lookups.
    /// `catalogSize` nil: the number of products in the file.
    /// `filtersKeys` false: without the catalog's key filter, every code not cached is a read.
    static func inProcessLookups(
        databasePath: String, catalogSize: Int?, count: Int, unknown: Bool = false, filtersKeys: Bool = true
    ) async throws -> (lookup: Histogram<UInt64>, floor: Histogram<UInt64>) {
        let database = try StoreDatabase(path: databasePath)
        let products = SQLiteProductRepository(database: database, filtersKeys: filtersKeys)
        try await products.waitForKeys(timeout: .seconds(600))
        let catalogSize = if let catalogSize { catalogSize } else { try await products.count() }
        let lookup = ProductLookup(products: products, catalog: CatalogSettings())
        var histogram = Histogram<UInt64>.nanoseconds()
        var floor = histogram
        let codes = (0..<(count + count / 10)).map { index in
            unknown ? "bench-\(index)" : barcode(Int.random(in: 0..<catalogSize))
        }
        let expected = unknown ? "not_found" : "found"
        for (index, code) in codes.enumerated() {
            let started = Nanos.now()
            let resolution = try await lookup.lookup(code: code)
            let took = Nanos.now() - started
            guard resolution.status == expected else { throw BenchmarkFailure(description: "\(code) not \(expected)") }
            if index >= count / 10 { _ = histogram.record(took) }
            let floorStarted = Nanos.now()
            await emptyAsyncCall()
            if index >= count / 10 { _ = floor.record(Nanos.now() - floorStarted) }
        }
        return (histogram, floor)
    }

    @inline(never)
    static func emptyAsyncCall() async {}
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
}
