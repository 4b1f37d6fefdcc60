import Synchronization

/// A file's chunks passed on as they are, counting their bytes for the progress line.
struct CountedChunks<Base: AsyncSequence>: AsyncSequence where Base.Element == [UInt8] {
    typealias Element = [UInt8]

    /// The bytes read so far; shared with whoever shows them.
    final class Counter: Sendable {
        private let bytes = Atomic<Int64>(0)
        var value: Int64 { bytes.load(ordering: .relaxed) }
        func add(_ count: Int) { bytes.add(Int64(count), ordering: .relaxed) }
    }

    let base: Base
    let counter: Counter

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), counter: counter)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let counter: Counter

        mutating func next() async throws -> [UInt8]? {
            let chunk = try await base.next()
            if let chunk { counter.add(chunk.count) }
            return chunk
        }
    }
}
