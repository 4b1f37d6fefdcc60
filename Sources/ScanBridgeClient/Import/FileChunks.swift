import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's bytes as an `AsyncSequence` of chunks (64 KiB), read with plain `read()` on
/// NIO's thread pool: a blocking read never runs on the cooperative pool. The next chunk
/// is read while the current one is parsed, and no further ahead, so memory stays at two
/// chunks whatever the size of the file. Iterate it once.
public struct FileChunks: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    public static let defaultChunkSize = 64 * 1024

    private let file: Descriptor
    private let chunkSize: Int

    /// Reads `descriptor`; closes it when done if `closing`.
    public init(fileDescriptor descriptor: Int32, closing: Bool, chunkSize: Int = defaultChunkSize) {
        self.file = Descriptor(descriptor, closing: closing)
        self.chunkSize = chunkSize
    }

    /// Standard input (left open).
    public static func standardInput(chunkSize: Int = defaultChunkSize) -> FileChunks {
        FileChunks(fileDescriptor: STDIN_FILENO, closing: false, chunkSize: chunkSize)
    }

    /// Opens the file at `path` for reading.
    ///
    /// - Throws: `ImportProblem` saying why it cannot be opened.
    public static func open(_ path: String, chunkSize: Int = defaultChunkSize) async throws -> FileChunks {
        let descriptor = try await NIOThreadPool.singleton.runIfActive { () throws(ImportProblem) -> Int32 in
            while true {
                let descriptor = openForReading(path)
                if descriptor >= 0 { return descriptor }
                if errno != EINTR { throw ImportProblem(line: nil, "cannot be opened: \(Descriptor.reason(errno))") }
            }
        }
        return FileChunks(fileDescriptor: descriptor, closing: true, chunkSize: chunkSize)
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(file: file, chunkSize: chunkSize)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        private let file: Descriptor
        private let chunkSize: Int
        private var ahead: Task<[UInt8], any Error>?
        private var ended = false

        fileprivate init(file: Descriptor, chunkSize: Int) {
            self.file = file
            self.chunkSize = chunkSize
        }

        public mutating func next() async throws -> [UInt8]? {
            guard !ended else { return nil }
            let read = ahead ?? startRead()
            ahead = nil
            let chunk: [UInt8]
            do {
                chunk = try await read.value
            } catch {
                ended = true
                throw error
            }
            guard !chunk.isEmpty else {
                ended = true
                return nil
            }
            ahead = startRead()
            return chunk
        }

        private func startRead() -> Task<[UInt8], any Error> {
            Task { [file, chunkSize] in
                try await NIOThreadPool.singleton.runIfActive { try file.read(upTo: chunkSize) }
            }
        }
    }
}

/// A file descriptor, closed when the last reader lets go of it (if it was opened here).
private final class Descriptor: Sendable {
    let value: Int32
    let closing: Bool

    init(_ value: Int32, closing: Bool) {
        self.value = value
        self.closing = closing
    }

    deinit {
        if closing { close(value) }
    }

    /// One `read()`: up to `count` bytes, none at the end of the file. Blocks.
    func read(upTo count: Int) throws(ImportProblem) -> [UInt8] {
        while true {
            var failure: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                let result = readBytes(value, buffer.baseAddress, count)
                initialized = max(result, 0)
                if result < 0 { failure = errno }
            }
            switch failure {
            case 0:
                return bytes
            case EINTR:
                continue
            case EAGAIN:
                // A non-blocking descriptor (a shell can leave stdin so): wait until it has data.
                var poller = pollfd(fd: value, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, -1)
            default:
                throw ImportProblem(line: nil, "cannot be read: \(Self.reason(failure))")
            }
        }
    }

    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

// The C calls, under names the types above do not shadow.
private func openForReading(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
