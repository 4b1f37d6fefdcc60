import Foundation

/// A subscriber the latency scenarios read scans from, whatever carries them (the Unix
/// socket's lines, a WebSocket's messages, Server-Sent Events): each read hands over the
/// whole messages in, each an event's JSON or an answer.
protocol ScanReader: AnyObject, Sendable {
    var descriptor: Int32 { get }
    /// Reads once, blocking until something arrives, and hands over the complete messages in,
    /// each with the time the read returned: after it, so no message read can have been sent later.
    func readMessages(_ body: (ArraySlice<UInt8>, UInt64) -> Void) throws
}

extension Array where Element == any ScanReader {
    /// Reads messages from all of these on the calling thread, calling `body` with each, the
    /// index of its reader and the time its read returned, until `body` says it has what it
    /// waits for (returns true) or `idle` passes without a message: a lost one shows as a
    /// short count, not a hang.
    func readMessages(idle: Duration = .seconds(10), _ body: (ArraySlice<UInt8>, Int, UInt64) -> Bool) throws {
        var polled = map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        let timeout = Int32(idle.components.seconds * 1000)
        var done = false
        while !done, poll(&polled, nfds_t(polled.count), timeout) > 0 {
            for (index, state) in polled.enumerated() where state.revents != 0 {
                try self[index].readMessages { message, arrived in
                    if !done { done = body(message, index, arrived) }
                }
            }
        }
    }
}
