import ScanBridgeModel
import ScanBridgeRPC
import Synchronization
import Testing

@testable import ScanBridgeClient

@Suite("Importer")
struct ImporterTests {
    /// Answers `*.upsert` as the daemon does: refuses a whole batch naming the first element
    /// whose `name` is "refused", else stores them all. Counts the calls in flight.
    final class FakeDaemon: Sendable {
        struct State {
            var batches: [[String]] = []
            var inFlight = 0
            var mostInFlight = 0
        }
        let state = Mutex(State())
        let failure: RPCError?

        init(failing failure: RPCError? = nil) {
            self.failure = failure
        }

        func send(_ method: String, _ params: Payload) async throws -> JSONValue {
            let member = String(method.prefix { $0 != "." })
            let elements = try JSONValue(parsing: JSONWriter.bytes(params))[member]?.arrayValue ?? []
            let names = elements.map { $0["name"]?.stringValue ?? $0["reference"]?.stringValue ?? "?" }
            state.withLock {
                $0.batches.append(names)
                $0.inFlight += 1
                $0.mostInFlight = max($0.mostInFlight, $0.inFlight)
            }
            try await Task.sleep(for: .milliseconds(2))  // a daemon's answer takes time: batches overlap
            state.withLock { $0.inFlight -= 1 }
            if let failure { throw failure }
            if let index = names.firstIndex(of: "refused") {
                throw RPCError(
                    code: RPCError.conflict, message: "\(member)[\(index)].sku is already used by another product",
                    data: ["field": .string("\(member)[\(index)].sku")])
            }
            if let index = elements.firstIndex(where: { $0["devices"]?.arrayValue?.count == 2 }) {
                throw RPCError(
                    code: RPCError.invalidParams, message: "\(member)[\(index)].devices[1].serial is too long",
                    data: ["field": .string("\(member)[\(index)].devices[1].serial")])
            }
            return .object([member: .array(elements)])
        }
    }

    final class Problems: Sendable {
        let list = Mutex<[ImportProblem]>([])
        func add(_ problem: ImportProblem) { list.withLock { $0.append(problem) } }
        var all: [ImportProblem] { list.withLock { $0 } }
    }

    static func run(
        _ csv: String, target: ImportTarget = .products(), daemon: FakeDaemon, batchSize: Int = 2, maxInFlight: Int = 4
    ) async -> (ImportSummary, [ImportProblem]) {
        let importer = Importer(target: target, batchSize: batchSize, maxInFlight: maxInFlight, send: daemon.send)
        let problems = Problems()
        let reader = ImportReader(ImportReaderTests.chunks(csv, size: 16), format: .csv, schema: target.schema)
        let summary = await importer.run(reader) { problems.add($0) }
        return (summary, problems.all.sorted { ($0.line ?? 0) < ($1.line ?? 0) })
    }

    @Test func badRowsAreReportedByLineAndTheRestIsSent() async {
        let daemon = FakeDaemon()
        let csv = """
            name,price,sku,barcode
            A,1.00,A,
            B,3.499,B,
            C,2,C,
            refused,1,R,
            D,1,D,5901234123458
            E,1,E,
            F,1,,5901234123457
            G,1,G,

            """
        // The daemon's catalog settings known: its currency's decimals are checked here.
        let (summary, problems) = await Self.run(csv, target: .products(settings: CatalogSettings()), daemon: daemon)
        #expect(summary.imported == 5)
        #expect(summary.skipped == 3)
        #expect(summary.failure == nil)
        #expect(problems.map(\.line) == [3, 5, 6])
        #expect(problems[0].message == "price has 3 decimals (3.499) but GBP has 2")
        #expect(problems[0].field == "price")
        #expect(problems[1].message == "sku is already used by another product")
        #expect(problems[1].field == "sku")
        #expect(problems[2].field == "barcode")
        // The batch with the refused row went again without it.
        #expect(daemon.state.withLock { $0.batches }.contains(["refused", "E"]))
        #expect(daemon.state.withLock { $0.batches }.contains(["E"]))
    }

    @Test func aPriceInTheDaemonsCurrencyIsLeftToTheDaemonToCheck() async {
        // The command line does not know the daemon's catalog.currency: "1.250" is right in a
        // KWD shop, "500" in a JPY one. A price naming its currency is checked here.
        let daemon = FakeDaemon()
        let csv = """
            name,price,currency,sku
            Dates,1.250,,D
            Matcha,500,,M
            Broken,1.2.3,,B
            Euro,1.005,EUR,E
            Gold,1,XAU,G

            """
        let (summary, problems) = await Self.run(csv, daemon: daemon)
        #expect(summary.imported == 2)
        #expect(daemon.state.withLock { $0.batches.flatMap { $0 } }.sorted() == ["Dates", "Matcha"])
        #expect(problems.map(\.line) == [4, 5, 6])
        #expect(problems.first?.message == "price must be an amount such as \"3.50\"; got '1.2.3'")
        #expect(problems.dropFirst().first?.message == "price has 3 decimals (1.005) but EUR has 2")
        #expect(problems.last?.message.contains("XAU has no minor unit in ISO 4217") == true)
        #expect(problems.map(\.field) == ["price", "price", "currency"])
    }

    @Test func neverMoreBatchesInFlightThanAllowed() async {
        let daemon = FakeDaemon()
        let csv = "name,price,sku\n" + (1...200).map { "P\($0),1.00,P\($0)\n" }.joined()
        let (summary, problems) = await Self.run(csv, daemon: daemon, batchSize: 3, maxInFlight: 4)
        #expect(summary.imported == 200)
        #expect(problems.isEmpty)
        let state = daemon.state.withLock { $0 }
        #expect(state.batches.count == 67)
        #expect(state.mostInFlight <= 4)
        #expect(state.mostInFlight > 1, "batches overlap")
    }

    @Test func aRefusedDeviceIsReportedOnItsOwnRow() async {
        let daemon = FakeDaemon()
        let csv = """
            id,reference,deviceId,serial
            ord_1,RM-1,dev_1,A
            ord_1,,dev_2,B
            ord_2,RM-2,dev_3,C

            """
        let (summary, problems) = await Self.run(csv, target: .orders(), daemon: daemon)
        #expect(summary.imported == 1)
        #expect(problems == [ImportProblem(line: 3, "devices[1].serial is too long", field: "devices[1].serial")])
    }

    @Test func aFailureOfAWholeBatchStopsTheImport() async {
        let daemon = FakeDaemon(failing: RPCError(code: RPCError.unavailable, message: "the database is read-only"))
        let csv = "name,price,sku\n" + (1...50).map { "P\($0),1.00,P\($0)\n" }.joined()
        let (summary, _) = await Self.run(csv, daemon: daemon, batchSize: 5, maxInFlight: 2)
        #expect(summary.imported == 0)
        #expect((summary.failure as? RPCError)?.code == RPCError.unavailable)
        #expect(daemon.state.withLock { $0.batches.count } < 10, "it stopped sending")
    }

    @Test func anUnreadableFileStopsTheImportBeforeAnythingIsSent() async {
        let daemon = FakeDaemon()
        let (summary, _) = await Self.run("name,price,colour\nTea,1,red\n", daemon: daemon)
        #expect((summary.failure as? ImportProblem)?.message.contains("unknown column 'colour'") == true)
        #expect(daemon.state.withLock { $0.batches.isEmpty })
    }

    @Test func recordsReadBeforeAFaultInTheFileAreStillSent() async {
        let daemon = FakeDaemon()
        let importer = Importer(target: .products(), batchSize: 10, send: daemon.send)
        let json = """
            [{"name": "A", "price": "1", "sku": "A"},
             {"name": "B", "price": "1", "sku": "B"}}]
            """
        let reader = ImportReader(ImportReaderTests.chunks(json), format: .json, schema: .products)
        let summary = await importer.run(reader) { _ in }
        #expect(summary.imported == 1)
        #expect((summary.failure as? ImportProblem)?.line == 2)
        #expect(daemon.state.withLock { $0.batches } == [["A"]])
    }

    @Test func elementsAreNamedOnlyByTheirIndexInTheBatch() {
        let uploader = BatchUploader(method: "products.upsert", member: "products") { _, _ in .null }
        #expect(
            uploader.message("products[12] needs an id, a barcode or a sku", element: 12)
                == "this row needs an id, a barcode or a sku")
        #expect(uploader.message("products[3].price must not be negative", element: 3) == "price must not be negative")
    }
}
