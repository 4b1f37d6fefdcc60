import NIOCore
import ScanBridgeModel
import ScanBridgeRPC
import Synchronization

/// Routes every line the daemon sends: responses to the calls awaiting them, notifications
/// to `notifications`, daemon requests to the request handler, and the rest to
/// `unmatchedLines`.
///
/// Shared by the reader task and the callers; a `Mutex` rather than an actor, so that a
/// response or a notification costs no executor hop at tens of thousands per second.
final class ClientInbox: Sendable {
    private struct State {
        var calls = PendingCalls()
        var requestHandler: DaemonRequestHandler?
        /// The daemon refused the connection (a `forbidden` error with id null):
        /// if the connection then closes, the waiting calls fail with it, not a bare "closed".
        var connectionError: RPCError?
    }

    let socketPath: String
    private let state: Mutex<State>
    private let notifications: AsyncStream<ClientNotification>.Continuation
    private let unmatched: AsyncStream<IncomingMessage.Line>.Continuation

    init(
        socketPath: String, requestHandler: DaemonRequestHandler?,
        notifications: AsyncStream<ClientNotification>.Continuation,
        unmatched: AsyncStream<IncomingMessage.Line>.Continuation
    ) {
        self.socketPath = socketPath
        self.state = Mutex(State(requestHandler: requestHandler))
        self.notifications = notifications
        self.unmatched = unmatched
    }

    // MARK: Calls

    /// Allocates the id of a new call; fails once the connection is closed.
    func open() throws(ClientError) -> Int64 {
        try state.withLock { state throws(ClientError) in try state.calls.open() }
    }

    /// Forgets a call whose request could not be written.
    func abandon(_ id: Int64) {
        state.withLock { $0.calls.abandon(id) }
    }

    /// Why the connection is closed, once it is.
    var closedBy: ClientError? {
        state.withLock { $0.calls.closedBy }
    }

    /// What a call that could not be sent should report: the daemon's refusal when it sent
    /// one, else why the connection closed.
    var closeReason: (any Error)? {
        state.withLock { state -> (any Error)? in state.connectionError ?? state.calls.closedBy }
    }

    /// Waits for the response to call `id`. Cancelling the waiting task abandons the call
    /// with `CancellationError`; its late response then counts as unmatched.
    func response(to id: Int64) async throws -> JSONValue {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if let early = state.withLock({ $0.calls.wait(id, continuation) }) {
                    continuation.resume(with: early)
                }
            }
        } onCancel: {
            state.withLock { $0.calls.cancel(id) }?.resume(throwing: CancellationError())
        }
    }

    var requestHandler: DaemonRequestHandler? {
        get { state.withLock { $0.requestHandler } }
        set { state.withLock { $0.requestHandler = newValue } }
    }

    // MARK: Reading

    /// Reads lines until the daemon closes the connection; responses to daemon requests
    /// go out through `outbound`.
    func run(
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws {
        for try await line in inbound {
            receive(IncomingMessage.parse(line.readableBytesView), outbound: outbound)
        }
    }

    private func receive(_ line: IncomingMessage.Line, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        guard case .single(let message) = line else {
            unmatched.yield(line)
            return
        }
        switch message {
        case .result(let id, let result):
            if !complete(id, with: .success(result)) { unmatched.yield(line) }
        case .error(let id, let error):
            if id == .null, error.code == RPCError.forbidden { state.withLock { $0.connectionError = error } }
            if !complete(id, with: .failure(error)) { unmatched.yield(line) }
        case .notification(let method, let params):
            notifications.yield(ClientNotification(method: method, params: params ?? .object([:])))
        case .request(let id, let method, let params):
            answer(DaemonRequest(id: id, method: method, params: params ?? .object([:])), through: outbound)
        case .invalid:
            unmatched.yield(line)
        }
    }

    /// Hands a response to its call; false when no call of this client has that id.
    private func complete(_ id: JSONValue, with result: Result<JSONValue, any Error>) -> Bool {
        guard let number = id.intValue else { return false }
        let (matched, resume) = state.withLock { $0.calls.answer(number, with: result) }
        resume?.resume(with: result)
        return matched
    }

    /// Answers a daemon request off the reading loop, so a slow handler never delays
    /// responses and notifications.
    private func answer(_ request: DaemonRequest, through outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        let handler = requestHandler
        Task {
            let reply: [UInt8]
            if let handler {
                do {
                    reply = RPCMessage.response(id: request.id, result: try await handler(request))
                } catch let error as RPCError {
                    reply = RPCMessage.error(id: request.id, error)
                } catch {
                    reply = RPCMessage.error(
                        id: request.id,
                        RPCError(
                            code: RPCError.internalError,
                            message: "the client's handler for \(request.method) failed: \(error)"))
                }
            } else {
                reply = RPCMessage.error(
                    id: request.id,
                    RPCError(
                        code: RPCError.methodNotFound,
                        message: "this client answers no \(request.method) requests: it set no request handler"))
            }
            // A failed write means the connection is gone, which the reader reports.
            try? await outbound.write(ClientChannel.line(reply))
        }
    }

    // MARK: Closing

    /// Fails every outstanding call and ends both streams. Only the first reason counts.
    func close(with error: ClientError) {
        let (reason, waiting) = state.withLock { state -> (any Error, _) in
            let waiting = state.calls.close(with: error)
            return (state.connectionError ?? state.calls.closedBy ?? error, waiting)
        }
        for continuation in waiting {
            continuation.resume(throwing: reason)
        }
        notifications.finish()
        unmatched.finish()
    }
}
