import ScanBridgeModel
import ScanBridgeRPC

/// Imports the records of a file into the daemon: checks each record locally (a bad row is
/// reported by its line and skipped), sends the good ones in batches through a
/// `BatchUploader`, with a few batches in flight so reading, the daemon's work and the
/// answers overlap, and never more, so memory stays bounded.
///
/// ```swift
/// let importer = Importer(target: .products(), client: client)
/// let file = try await FileChunks.open("catalog.csv")
/// let summary = await importer.run(ImportReader(file, format: .csv, schema: .products)) { problem in
///     print("catalog.csv:\(problem.line ?? 0): \(problem.message)")
/// }
/// ```
public struct Importer: Sendable {
    public let target: ImportTarget
    /// Records per call.
    public let batchSize: Int
    /// Calls awaiting their answer at once.
    public let maxInFlight: Int
    /// A batch is sent once its records' JSON reaches this; one record may have at most half
    /// of it, so a call stays well under the daemon's 1 MiB line.
    public let maxBatchBytes: Int
    private let uploader: BatchUploader

    public init(
        target: ImportTarget, batchSize: Int = 1000, maxInFlight: Int = 4, maxBatchBytes: Int = 512 * 1024,
        send: @escaping BatchUploader.Send
    ) {
        self.target = target
        self.batchSize = max(1, batchSize)
        self.maxInFlight = max(1, maxInFlight)
        self.maxBatchBytes = maxBatchBytes
        self.uploader = BatchUploader(method: target.method, member: target.member, send: send)
    }

    /// Sends through `client`.
    public init(target: ImportTarget, batchSize: Int = 1000, maxInFlight: Int = 4, client: ScanBridgeClient) {
        self.init(target: target, batchSize: batchSize, maxInFlight: maxInFlight, send: BatchUploader.calls(through: client))
    }

    /// Reads `items` to the end, or to the first failure, and returns what was done. When the
    /// reading fails, the records read before are still sent; when a batch fails as a whole,
    /// no further batch is sent.
    ///
    /// - Parameters:
    ///   - onProblem: Called for each row skipped (locally or by the daemon), as found.
    ///   - onProgress: Called with the totals so far after each batch's answer.
    /// - Returns: The totals; `failure` is what stopped the import early (the reader's
    ///   `ImportProblem`, a `ClientError`, an `RPCError` about a whole batch).
    public func run<Items: AsyncSequence>(
        _ items: Items, onProblem: (ImportProblem) async -> Void, onProgress: (ImportSummary) async -> Void = { _ in }
    ) async -> ImportSummary where Items.Element == ImportItem {
        var summary = ImportSummary()
        await withTaskGroup(of: BatchUploader.Outcome.self) { group in
            var inFlight = 0
            var batch = Batch()
            var iterator = items.makeAsyncIterator()
            // What stopped the reading; the records read before it are still sent.
            var readFailure: (any Error)?
            reading: while summary.failure == nil {
                let item: ImportItem?
                do {
                    item = try await iterator.next()
                } catch {
                    readFailure = error
                    item = nil
                }
                switch item {
                case .problem(let problem)?:
                    summary.skipped += 1
                    await onProblem(problem)
                    continue reading
                case .record(let record)?:
                    switch entry(for: record) {
                    case .success(let entry): batch.add(entry)
                    case .failure(let problem):
                        summary.skipped += 1
                        await onProblem(problem)
                    }
                    guard batch.entries.count >= batchSize || batch.bytes >= maxBatchBytes else { continue reading }
                case nil:
                    guard !batch.entries.isEmpty else { break reading }
                }
                while inFlight >= maxInFlight, let outcome = await group.next() {
                    inFlight -= 1
                    await summary.absorb(outcome, onProblem: onProblem, onProgress: onProgress)
                }
                if summary.failure == nil {
                    group.addTask { [uploader, entries = batch.take()] in await uploader.upload(entries) }
                    inFlight += 1
                }
                if item == nil { break reading }
            }
            for await outcome in group {
                await summary.absorb(outcome, onProblem: onProblem, onProgress: onProgress)
            }
            if summary.failure == nil { summary.failure = readFailure }
        }
        return summary
    }

    /// A record checked and encoded, or what is wrong with it.
    func entry(for record: ImportRecord) -> Result<BatchUploader.Entry, ImportProblem> {
        do throws(ScanBridgeError) {
            guard case .object = record.object else {
                return .failure(
                    ImportProblem(
                        line: record.lines.line, "expected a JSON object with named fields, not \(record.object.typeName)"))
            }
            try target.validate(JSONFields(record.object))
        } catch {
            return .failure(ImportProblem(line: record.lines.line(forField: error.field), error.message, field: error.field))
        }
        let json = JSONWriter.bytes(.value(record.object))
        guard json.count <= maxBatchBytes / 2 else {
            return .failure(
                ImportProblem(
                    line: record.lines.line,
                    "this \(target.noun) is \(json.count / 1024) KiB as JSON, more than one call may carry"))
        }
        return .success(BatchUploader.Entry(lines: record.lines, json: json))
    }

    /// The records gathered for the next call.
    private struct Batch {
        var entries: [BatchUploader.Entry] = []
        var bytes = 0

        mutating func add(_ entry: BatchUploader.Entry) {
            entries.append(entry)
            bytes += entry.json.count + 1
        }

        mutating func take() -> [BatchUploader.Entry] {
            defer { self = Batch() }
            return entries
        }
    }
}

/// What an import did, so far or in the end.
public struct ImportSummary: Sendable {
    /// Records the daemon stored.
    public var imported = 0
    /// Rows skipped: refused by the local check or by the daemon, or unreadable.
    public var skipped = 0
    /// What stopped the import before the end of the file, if anything did.
    public var failure: (any Error)?

    public init() {}

    mutating func absorb(
        _ outcome: BatchUploader.Outcome, onProblem: (ImportProblem) async -> Void, onProgress: (ImportSummary) async -> Void
    ) async {
        imported += outcome.accepted
        skipped += outcome.refused.count
        for problem in outcome.refused { await onProblem(problem) }
        if failure == nil, let error = outcome.failure { failure = error }
        await onProgress(self)
    }
}
