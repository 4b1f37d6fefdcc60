import NIOCore
import NIOPosix
import Synchronization

/// A connection that counts the lines it receives without parsing them, so the benchmark's
/// own CPU does not limit what it measures; one given a tally also counts the resolutions in
/// them. Waiters are woken when a count is reached.
final class LineCounter: Sendable {
    private struct State {
        var lines = 0
        var waiters: [(Int, CheckedContinuation<Void, Never>)] = []
    }

    let channel: any Channel
    private let state = Mutex(State())

    private init(channel: any Channel) {
        self.channel = channel
    }

    static func connect(socketPath: String, tally: OutcomeTally? = nil) async throws -> LineCounter {
        let box = CounterBox(tally: tally)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(box: box))
                }
            }
            .connect(unixDomainSocketPath: socketPath).get()
        let counter = LineCounter(channel: channel)
        box.counter.withLock { $0 = counter }
        return counter
    }

    var lines: Int { state.withLock { $0.lines } }

    /// `count` connections, each subscribed to every event, its subscription's answer in.
    static func subscribed(socketPath: String, count: Int) async throws -> [LineCounter] {
        var counters: [LineCounter] = []
        for _ in 0..<count {
            let counter = try await connect(socketPath: socketPath)
            counter.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#.utf8) + [0x0A])
            await counter.wait(forLines: 1)
            counters.append(counter)
        }
        return counters
    }

    func send(_ bytes: [UInt8]) {
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    /// Returns once at least `count` lines have arrived.
    func wait(forLines count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.lines >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Returns once at least `count` lines have arrived, or when none has for `idle` (a
    /// subscriber whose subscription the daemon closed, too slow on a loaded machine, gets no
    /// more: the benchmark then reports the lines missing rather than wait forever).
    func wait(forLines count: Int, idle: Duration) async {
        var seen = lines
        var quietSince = ContinuousClock.now
        while seen < count {
            try? await Task.sleep(for: .milliseconds(50))
            let now = lines
            if now != seen {
                seen = now
                quietSince = .now
            } else if ContinuousClock.now - quietSince >= idle {
                return
            }
        }
    }

    func close() async {
        try? await channel.close()
    }

    fileprivate func add(_ lines: Int) {
        let due = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.lines += lines
            let total = state.lines
            let due = state.waiters.filter { $0.0 <= total }.map(\.1)
            state.waiters.removeAll { $0.0 <= total }
            return due
        }
        for waiter in due { waiter.resume() }
    }

    private final class CounterBox: Sendable {
        let counter = Mutex<LineCounter?>(nil)
        let tally: OutcomeTally?
        init(tally: OutcomeTally?) { self.tally = tally }
    }

    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let box: CounterBox
        init(box: CounterBox) { self.box = box }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            let lines = buffer.withUnsafeReadableBytes { bytes in
                box.tally?.consume(bytes)
                var count = 0
                for byte in bytes where byte == 0x0A { count += 1 }
                return count
            }
            box.counter.withLock { $0 }?.add(lines)
        }
    }
}
