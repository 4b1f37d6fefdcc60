import Foundation
public import ScanBridgeModel
public import ScanBridgeRPC

/// Sends one batch of records with an `*.upsert` call. When the daemon refuses an element
/// (`-32602` or `-32002` with `data.field` such as `products[3].price`; it then stores
/// nothing of the batch), that record is reported by its source line and the batch is sent
/// again without it.
public struct BatchUploader: Sendable {
    /// Makes one call; `ScanBridgeClient.call(_:params:)` in practice, a fake in tests.
    public typealias Send = @Sendable (_ method: String, _ params: Payload) async throws -> JSONValue

    /// A record ready to send: its JSON, encoded once, and where it came from.
    public struct Entry: Sendable {
        public var lines: SourceLines
        public var json: [UInt8]

        public init(lines: SourceLines, json: [UInt8]) {
            self.lines = lines
            self.json = json
        }
    }

    /// What became of a batch.
    public struct Outcome: Sendable {
        /// How many records the daemon stored.
        public var accepted = 0
        /// The records it refused, by line.
        public var refused: [ImportProblem] = []
        /// Why the batch failed as a whole (connection lost, database unavailable…).
        public var failure: (any Error)?
    }

    public let method: String
    public let member: String
    private let send: Send

    public init(method: String, member: String, send: @escaping Send) {
        self.method = method
        self.member = member
        self.send = send
    }

    /// Sends through `client`.
    public init(method: String, member: String, client: ScanBridgeClient) {
        self.init(method: method, member: member, send: Self.calls(through: client))
    }

    /// `client.call(_:params:)` as a `Send`.
    public static func calls(through client: ScanBridgeClient) -> Send {
        { method, params in try await client.call(method, params: params) }
    }

    /// How often a batch is sent again after `-32005` (overloaded), waiting longer each time.
    static let overloadRetries = 5

    public func upload(_ batch: [Entry]) async -> Outcome {
        var entries = batch
        var outcome = Outcome()
        var retries = 0
        while !entries.isEmpty {
            do {
                let result = try await send(method, .object([(member, .array(entries.map { .raw($0.json) }))]))
                outcome.accepted = result[member]?.arrayValue?.count ?? entries.count
                return outcome
            } catch let error as RPCError {
                if let (index, field) = refusedElement(error), entries.indices.contains(index) {
                    let entry = entries.remove(at: index)
                    outcome.refused.append(
                        ImportProblem(
                            line: entry.lines.line(forField: field), message(error.message, element: index), field: field))
                } else if error.code == RPCError.overloaded, retries < Self.overloadRetries {
                    retries += 1
                    try? await Task.sleep(for: .milliseconds(50 << retries))
                } else {
                    outcome.failure = error
                    return outcome
                }
            } catch {
                outcome.failure = error
                return outcome
            }
        }
        return outcome
    }

    /// The element an error names (`products[3].price` → 3, `price`), when it names one.
    func refusedElement(_ error: RPCError) -> (index: Int, field: String?)? {
        guard error.code == RPCError.invalidParams || error.code == RPCError.conflict,
            let path = error.data?["field"]?.stringValue, path.hasPrefix(member + "[")
        else { return nil }
        let rest = path.dropFirst(member.count + 1)
        guard let close = rest.firstIndex(of: "]"), let index = Int(rest[..<close]) else { return nil }
        let field = rest[rest.index(after: close)...].drop { $0 == "." }
        return (index, field.isEmpty ? nil : String(field))
    }

    /// The daemon's message about `products[3]`, said of the row: `products[3].price must…` → `price must…`.
    func message(_ text: String, element index: Int) -> String {
        text.replacingOccurrences(of: "\(member)[\(index)].", with: "")
            .replacingOccurrences(of: "\(member)[\(index)]", with: "this row")
    }
}
