import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC
import Synchronization

/// Requests the daemon sends to one client (`handler.resolve`) and the answers it waits
/// for. Each waits at most its timeout; an answer that comes later is dropped.
final class DaemonRequests: Sendable {
    enum Answer: Sendable, Hashable {
        case result(JSONValue)
        case error(RPCError)
        case timeout
        /// The connection closed, or too many requests were waiting already.
        case unavailable(String)
    }

    private struct Pending {
        let continuation: CheckedContinuation<Answer, Never>
        let timer: Task<Void, Never>
    }

    private struct State {
        var next: Int64 = 1
        var pending: [Int64: Pending] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let limit: Int

    /// `limit`: requests that may wait at once; past it, requests fail at once instead of queueing.
    init(limit: Int = 1024) {
        self.limit = limit
    }

    /// Sends a request through `send` and waits for its answer, for at most `timeout`.
    func request(
        _ method: String, params: Payload, timeout: Duration, send: @Sendable ([UInt8]) -> Void
    ) async -> Answer {
        await withCheckedContinuation { continuation in
            let id: Int64 = state.withLock { state in
                guard !state.closed else { return 0 }
                guard state.pending.count < limit else { return -1 }
                let id = state.next
                state.next += 1
                let timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self?.complete(id, with: .timeout)
                }
                state.pending[id] = Pending(continuation: continuation, timer: timer)
                return id
            }
            switch id {
            case 0: continuation.resume(returning: .unavailable("the handler's connection has closed"))
            case -1: continuation.resume(returning: .unavailable("\(limit) requests to the handler are waiting already"))
            default: send(RPCMessage.request(id: .int(id), method: method, params: params))
            }
        }
    }

    /// An answer from the client: a result or an error for request `id`. False when no
    /// request waits for it (answered late, or an id the daemon never sent).
    @discardableResult
    func answer(id: JSONValue, with answer: Answer) -> Bool {
        guard let number = id.intValue else { return false }
        return complete(number, with: answer)
    }

    /// Fails every waiting request; later requests fail at once.
    func close() {
        let pending = state.withLock { state in
            state.closed = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for request in pending {
            request.timer.cancel()
            request.continuation.resume(returning: .unavailable("the handler's connection closed"))
        }
    }

    @discardableResult
    private func complete(_ id: Int64, with answer: Answer) -> Bool {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return false }
        if answer != .timeout { pending.timer.cancel() }
        pending.continuation.resume(returning: answer)
        return true
    }
}
