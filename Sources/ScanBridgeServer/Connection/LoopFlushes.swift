package import NIOCore
import Synchronization

/// The socket writers of one event loop that have messages waiting, flushed together by one
/// task on the loop.
///
/// A committed event reaches every subscriber's outbox at once, from the journal's writer
/// thread. One task for all of them hands the loop its work in one step: a task per
/// connection would cost every subscriber a closure and a trip through the loop's task
/// queue and its lock.
package final class LoopFlushes: Sendable {
    private let eventLoop: any EventLoop
    private let ready = Mutex<[SocketWriter]>([])

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Flushes `writer` on the loop soon, with every other writer scheduled meanwhile. From any thread.
    func schedule(_ writer: SocketWriter) {
        let first = ready.withLock { ready in
            ready.append(writer)
            return ready.count == 1
        }
        if first { eventLoop.execute { self.flushReady() } }
    }

    private func flushReady() {
        let writers = ready.withLock { ready in
            defer { ready = [] }
            return ready
        }
        for writer in writers { writer.flush() }
    }
}

/// One `LoopFlushes` for each event loop the server's connections run on, made on first use.
package final class LoopFlushesByLoop: Sendable {
    private let byLoop = Mutex<[ObjectIdentifier: LoopFlushes]>([:])

    package init() {}

    package func flushes(for eventLoop: any EventLoop) -> LoopFlushes {
        byLoop.withLock { byLoop in
            if let flushes = byLoop[ObjectIdentifier(eventLoop)] { return flushes }
            let flushes = LoopFlushes(eventLoop: eventLoop)
            byLoop[ObjectIdentifier(eventLoop)] = flushes
            return flushes
        }
    }
}
