import FuzzSupport
import NIOCore
import NIOEmbedded
import ScanBridgeRPC
import ScanBridgeServer

/// What a client's bytes meet first: the line framer, fed in reads of any size, and the
/// JSON-RPC classification of each line it cuts. Any bytes give lines, a too-long-line
/// error, or messages and errors to answer, never a crash; no line is over the limit.
enum FuzzRPCLine: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        // A small limit, so the fuzzer reaches it; the daemon's is configurable too.
        let limit = Int(input.byte()) + 1
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limit)))
        defer { _ = try? channel.finish() }
        for chunk in input.chunks() {
            do {
                try channel.writeInbound(channel.allocator.buffer(bytes: chunk))
            } catch {
                fuzzCheck(error is LineFrameDecoder.LineTooLong, "the framer threw \(error)")
                return
            }
            while let line = try? channel.readInbound(as: ByteBuffer.self) {
                fuzzCheck(line.readableBytes <= limit, "a line of \(line.readableBytes) bytes, over \(limit)")
                _ = IncomingMessage.parse(line.readableBytesView)
            }
        }
    }
}
