import NIOCore
import NIOPosix
public import ScanBridgeModel
public import ScanBridgeRPC

/// An async client of the ScanBridge daemon (docs/protocol.md): calls, notifications, and
/// requests from the daemon, over one Unix-socket connection.
///
/// ```swift
/// let client = try await ScanBridgeClient.connect()
/// let devices = try await client.call("devices.list")
/// _ = try await client.call("events.subscribe", ["kinds": ["barcode"]])
/// for await notification in client.notifications {
///     if let event = try notification.scanEvent() { print(event.text) }
/// }
/// await client.close()
/// ```
///
/// Any number of calls may be in flight at once, from any tasks; responses are matched by
/// id whatever order they come in.
public final class ScanBridgeClient: Sendable {
    /// The socket this client is connected to.
    public let socketPath: String

    /// Every notification the daemon sends, in order. Unbounded: the daemon bounds its own
    /// queue per subscription (and says `events.overflow`), so the client never drops one.
    /// Ends when the connection closes. Iterate it from one task only.
    public let notifications: AsyncStream<ClientNotification>

    /// Lines that answer no call of this client and are neither a notification nor a daemon
    /// request: answers to `sendRaw`, batch answers, errors with a null id, late responses
    /// to cancelled calls, anything unparsable. Keeps the newest 256 when nobody reads it.
    public let unmatchedLines: AsyncStream<IncomingMessage.Line>

    private let inbox: ClientInbox
    private let channel: any Channel
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let reader: Task<Void, Never>

    private init(
        socketPath: String, notifications: AsyncStream<ClientNotification>,
        unmatchedLines: AsyncStream<IncomingMessage.Line>, inbox: ClientInbox, channel: any Channel,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, reader: Task<Void, Never>
    ) {
        self.socketPath = socketPath
        self.notifications = notifications
        self.unmatchedLines = unmatchedLines
        self.inbox = inbox
        self.channel = channel
        self.outbound = outbound
        self.reader = reader
    }

    deinit {
        // A client dropped without `close()` must not leave its connection open forever.
        channel.close(promise: nil)
    }

    /// Connects to the daemon.
    ///
    /// - Parameters:
    ///   - socketPath: The daemon's socket. By default the path docs/protocol.md "The socket"
    ///     resolves, and then the system daemon's socket when nothing answers at a per-user one.
    ///   - requestHandler: Answers requests the daemon sends (see `setRequestHandler(_:)`).
    /// - Throws: `ClientError`; with code `noDaemon` when nothing listens at any socket tried,
    ///   `untrustedSocket` when a socket's folder is writable by every user.
    public static func connect(
        socketPath: String? = nil, requestHandler: DaemonRequestHandler? = nil
    ) async throws(ClientError) -> ScanBridgeClient {
        let paths = socketPath.map { [$0] } ?? SocketPath.candidates()
        var failure: ClientError?
        for path in paths {
            do {
                return try await connect(to: path, requestHandler: requestHandler)
            } catch  where error.code == .noDaemon {
                // The first failure names the path the user expects; later ones only confirm it.
                failure = failure ?? error
            }
        }
        throw failure ?? .noDaemon(socketPath: paths[0])
    }

    private static func connect(
        to socketPath: String, requestHandler: DaemonRequestHandler?
    ) async throws(ClientError) -> ScanBridgeClient {
        // Reading the folder's mode is a file system call: off the cooperative pool.
        let refusal: String?
        do {
            refusal = try await NIOThreadPool.singleton.runIfActive { FolderAccess.clientRefusal(socketPath: socketPath) }
        } catch {
            throw ClientError(.connectFailed, "could not check the folder of \(socketPath): \(error)", socketPath: socketPath)
        }
        if let refusal { throw ClientError(.untrustedSocket, refusal, socketPath: socketPath) }
        let connection = try await ClientChannel.connect(socketPath: socketPath)
        let (notifications, notificationSink) = AsyncStream.makeStream(
            of: ClientNotification.self, bufferingPolicy: .unbounded)
        let (unmatched, unmatchedSink) = AsyncStream.makeStream(
            of: IncomingMessage.Line.self, bufferingPolicy: .bufferingNewest(256))
        let inbox = ClientInbox(
            socketPath: socketPath, requestHandler: requestHandler, notifications: notificationSink,
            unmatched: unmatchedSink)

        // The writer only exists inside `executeThenClose`, which the reader task owns for the
        // connection's whole life; it hands the writer out through this stream.
        let (writers, writerSink) = AsyncStream.makeStream(of: NIOAsyncChannelOutboundWriter<ByteBuffer>.self)
        let reader = Task {
            do {
                try await connection.executeThenClose { inbound, outbound in
                    writerSink.yield(outbound)
                    writerSink.finish()
                    try await inbox.run(inbound: inbound, outbound: outbound)
                }
            } catch {
                // A broken connection ends like a closed one: the calls learn it below.
            }
            writerSink.finish()
            inbox.close(with: .connectionClosed(socketPath: socketPath))
        }
        var handedOver = writers.makeAsyncIterator()
        guard let outbound = await handedOver.next() else {
            throw .connectionClosed(socketPath: socketPath)
        }
        return ScanBridgeClient(
            socketPath: socketPath, notifications: notifications, unmatchedLines: unmatched, inbox: inbox,
            channel: connection.channel, outbound: outbound, reader: reader)
    }

    /// Calls `method` and returns its result.
    ///
    /// - Throws: `RPCError` when the daemon answers with an error; `ClientError` when the
    ///   connection is or gets closed before the answer; `CancellationError` when the calling
    ///   task is cancelled (the daemon still runs the call).
    public func call(_ method: String, _ params: JSONValue = .object([:])) async throws -> JSONValue {
        try await call(method, params: .value(params))
    }

    /// Calls `method` with params already built as a `Payload` (pre-encoded JSON is
    /// spliced in as is), and returns its result.
    public func call(_ method: String, params: Payload) async throws -> JSONValue {
        try Task.checkCancellation()
        let id = try inbox.open()
        do {
            try await write(RPCMessage.request(id: .int(id), method: method, params: params))
        } catch {
            inbox.abandon(id)
            throw error
        }
        return try await inbox.response(to: id)
    }

    /// Sends a notification (a request without id): the daemon answers nothing.
    public func notify(_ method: String, _ params: JSONValue = .object([:])) async throws {
        try await write(RPCMessage.notification(method: method, params: .value(params)))
    }

    /// Sends `bytes` as they are, followed by `\n` unless `terminated` is false — for tests
    /// of malformed input. The daemon's answers arrive in `unmatchedLines`.
    public func sendRaw(_ bytes: [UInt8], terminated: Bool = true) async throws {
        try await write(bytes, terminated: terminated)
    }

    /// Sets (or removes, with nil) the handler of requests from the daemon, such as
    /// `handler.resolve`. Set it before `handlers.register`: without a handler the client
    /// answers "method not found".
    public func setRequestHandler(_ handler: DaemonRequestHandler?) {
        inbox.requestHandler = handler
    }

    /// Closes the connection. Calls still waiting fail with `ClientError` code
    /// `closedByClient`, and `notifications` ends.
    public func close() async {
        inbox.close(with: .closedByClient(socketPath: socketPath))
        channel.close(promise: nil)
        await reader.value
    }

    private func write(_ bytes: [UInt8], terminated: Bool = true) async throws {
        do {
            try await outbound.write(ClientChannel.line(bytes, terminated: terminated))
        } catch let error as CancellationError {
            throw error
        } catch {
            throw inbox.closeReason ?? ClientError.connectionClosed(socketPath: socketPath)
        }
    }
}
