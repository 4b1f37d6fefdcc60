/// Tells a waiting task that there is something to do: rung from anywhere, never blocking;
/// rings while no one waits are folded into one.
package final class Doorbell: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    package init() {
        (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    package func ring() {
        continuation.yield()
    }

    /// The rings, for the one task that waits on them.
    func rings() -> AsyncStream<Void>.Iterator {
        stream.makeAsyncIterator()
    }
}
