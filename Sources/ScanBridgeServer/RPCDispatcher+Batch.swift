import ScanBridgeModel
import ScanBridgeRPC
import Synchronization

extension RPCDispatcher {
    /// Calls of one batch running at once, beside the calls to a method with a batch form.
    static let batchConcurrency = 16

    /// The answers to a batch's messages, in its order, each already in bytes (`.raw`). The
    /// calls to a method with a batch form run together, in one task; every other message
    /// runs in a task of its own, `batchConcurrency` at a time (their journal writes share
    /// commits).
    ///
    /// The answers are counted as they come against `maxBytes`, the line limit: once they
    /// reach it, a call not yet started is not run, and a request among them is answered
    /// `-32005` (a notification gets nothing). A batch of large answers (`events.recent`
    /// a thousand times) so costs about one line's worth, not a thousand.
    func answer(batch messages: [IncomingMessage], on connection: Connection, maxBytes: Int) async -> [Answer] {
        var together: [String: [(position: Int, id: JSONValue?, params: Params)]] = [:]
        var alone: [Int] = []
        for (position, message) in messages.enumerated() {
            let (id, method, params): (JSONValue?, String, JSONValue?)
            switch message {
            case .request(let requestID, let name, let body): (id, method, params) = (requestID, name, body)
            case .notification(let name, let body): (id, method, params) = (nil, name, body)
            default:
                alone.append(position)
                continue
            }
            // What `call` would refuse is answered alone, by `call`.
            guard batched[method] != nil, let parsed = try? permitted(method, params, on: connection) else {
                alone.append(position)
                continue
            }
            together[method, default: []].append((position, id, parsed))
        }
        let budget = BatchBudget(maxBytes: maxBytes)
        var answers = [Answer](repeating: (nil, nil), count: messages.count)
        await withTaskGroup(of: [(Int, Answer)].self) { group in
            for (method, calls) in together {
                guard let run = batched[method] else { continue }
                group.addTask {
                    let outcomes = await run(calls.map(\.params), connection)
                    return zip(calls, outcomes).map { call, outcome in
                        (call.position, budget.charge(answer(id: call.id, method: method, outcome, on: connection)))
                    }
                }
            }
            var next = alone.makeIterator()
            func startNext() {
                guard let position = next.next() else { return }
                let message = messages[position]
                group.addTask {
                    if budget.isSpent, let refusal = budget.refusal(of: message) { return [(position, refusal)] }
                    return [(position, budget.charge(await answer(message, on: connection)))]
                }
            }
            for _ in 0..<Self.batchConcurrency { startNext() }
            for await answered in group {
                for (position, answer) in answered { answers[position] = answer }
                startNext()
            }
        }
        return answers
    }
}

/// The bytes a batch's answers have taken so far.
private final class BatchBudget: Sendable {
    let maxBytes: Int
    private let spent = Mutex(0)

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    var isSpent: Bool { spent.withLock { $0 >= maxBytes } }

    /// The answer with its payload in bytes, counted.
    func charge(_ answer: Answer) -> Answer {
        guard let payload = answer.payload else { return answer }
        let bytes = JSONWriter.bytes(payload)
        spent.withLock { $0 += bytes.count }
        return (.raw(bytes), answer.afterResponse)
    }

    /// The answer to a call not run because the batch's answers reached `maxBytes`: `-32005`
    /// for a request, nothing for a notification; nil for a message that is no call (an
    /// answer to the daemon's own request), which is always taken.
    func refusal(of message: IncomingMessage) -> Answer? {
        switch message {
        case .notification:
            return (nil, nil)
        case .request(let id, _, _):
            let error = RPCError(
                code: RPCError.overloaded,
                message:
                    "overloaded: not run, as this batch's answers reached \(maxBytes) bytes (server.max_line_bytes); send it again in a batch of its own"
            )
            return (RPCMessage.errorPayload(id: id, error), nil)
        case .invalid, .result, .error:
            return nil
        }
    }
}
