import ScanBridgeModel

/// The calls awaiting a response, keyed by the integer id the client allocated.
///
/// A pure state machine: the caller holds it in a `Mutex` and resumes the continuations it
/// hands back outside the lock. A response may arrive before the caller has suspended (the
/// write completes, the daemon answers, and only then does the caller reach its
/// continuation), so a slot can hold an answer until it is collected.
struct PendingCalls {
    typealias Continuation = CheckedContinuation<JSONValue, any Error>

    private enum Slot {
        /// The request is (being) sent; nobody waits yet.
        case open
        case waiting(Continuation)
        case answered(Result<JSONValue, any Error>)
    }

    private var nextID: Int64 = 1
    private var slots: [Int64: Slot] = [:]
    /// Set once the connection is gone: every later call fails with it.
    private(set) var closedBy: ClientError?

    /// Allocates an id for a new call.
    mutating func open() throws(ClientError) -> Int64 {
        if let closedBy { throw closedBy }
        let id = nextID
        nextID += 1
        slots[id] = .open
        return id
    }

    /// Parks `continuation` for `id`, or returns the answer when it already came.
    mutating func wait(_ id: Int64, _ continuation: Continuation) -> Result<JSONValue, any Error>? {
        switch slots[id] {
        case .open?:
            slots[id] = .waiting(continuation)
            return nil
        case .answered(let result)?:
            slots[id] = nil
            return result
        case .waiting?, nil:
            // The call was already failed and collected; only a misuse gets here.
            return .failure(closedBy ?? ClientError.connectionClosed(socketPath: nil))
        }
    }

    /// Records the answer for `id`. Returns whether the id belonged to a call, and the
    /// continuation to resume when the caller was already waiting.
    mutating func answer(_ id: Int64, with result: Result<JSONValue, any Error>) -> (matched: Bool, resume: Continuation?) {
        switch slots[id] {
        case .open?:
            slots[id] = .answered(result)
            return (true, nil)
        case .waiting(let continuation)?:
            slots[id] = nil
            return (true, continuation)
        case .answered?, nil:
            return (false, nil)
        }
    }

    /// Gives up on `id` because its caller was cancelled; a late response to it then counts
    /// as unmatched. Returns the continuation to resume when the caller was waiting.
    mutating func cancel(_ id: Int64) -> Continuation? {
        switch slots[id] {
        case .open?:
            slots[id] = .answered(.failure(CancellationError()))
            return nil
        case .waiting(let continuation)?:
            slots[id] = nil
            return continuation
        case .answered?, nil:
            return nil
        }
    }

    /// Drops a call whose request could not be sent.
    mutating func abandon(_ id: Int64) {
        slots[id] = nil
    }

    /// Fails every outstanding call with `error` and refuses new ones.
    mutating func close(with error: ClientError) -> [Continuation] {
        if closedBy == nil { closedBy = error }
        var waiting: [Continuation] = []
        for (id, slot) in slots {
            switch slot {
            case .open: slots[id] = .answered(.failure(error))
            case .waiting(let continuation):
                waiting.append(continuation)
                slots[id] = nil
            case .answered: break
            }
        }
        return waiting
    }
}
