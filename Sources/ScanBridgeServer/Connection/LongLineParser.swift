import Glibc
package import NIOCore
import NIOPosix
package import ScanBridgeRPC

/// Parses the long lines clients send (batches, imports) on a thread of its own, under Linux's
/// idle scheduling policy: a client sending them as fast as it can keeps that thread busy, not
/// the event loop every other client shares, and any other thread of the box that wakes (a
/// scan's) takes the core from it at once (docs/architecture.md, Design decisions). Short
/// lines, every scan's, are parsed on the loop as they come.
final class LongLineParser: Sendable {
    /// Lines longer than this go to the parser's thread.
    static let threshold = 8 * 1024
    static let shared = LongLineParser()

    private let pool = NIOThreadPool(numberOfThreads: 1)
    /// SCHED_IDLE, from <linux/sched.h>, which Glibc's module does not export.
    private static let idlePolicy: Int32 = 5

    private init() {
        pool.start()
        // SCHED_IDLE rather than a nice value: a woken thread preempts an idle-policy thread at
        // once, while under a nice value it waits for the running thread's time slice.
        pool.submit { _ in
            var parameters = sched_param()
            _ = pthread_setschedparam(pthread_self(), Self.idlePolicy, &parameters)
        }
    }

    func parse(_ line: ByteBuffer, maxBatch: Int, on eventLoop: any EventLoop) -> EventLoopFuture<ReceivedLine> {
        pool.runIfActive(eventLoop: eventLoop) { ReceivedLine(line.readableBytesView, maxBatch: maxBatch) }
    }
}

/// A line as the connection receives it: blank, a batch refused unread, or parsed.
package enum ReceivedLine: Sendable {
    case blank
    case batchTooLarge
    case parsed(IncomingMessage.Line)

    package init(_ bytes: ByteBufferView, maxBatch: Int) {
        if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
            self = .blank
        } else if IncomingMessage.isBatch(bytes, longerThan: maxBatch) {
            // Refused whole and unread, before parsing: a line of a million tiny elements must
            // not become a million parsed values, let alone a million tasks and answers.
            self = .batchTooLarge
        } else {
            self = .parsed(IncomingMessage.parse(bytes))
        }
    }
}
