import Glibc
package import NIOCore

/// Splits the byte stream into lines: one JSON-RPC message per line, LF-terminated,
/// with an optional CR before the LF. A line longer than `maxLineBytes` is an error
/// (the connection answers "message too large" and closes), so a client can never make
/// the daemon buffer without bound.
package struct LineFrameDecoder: ByteToMessageDecoder {
    package typealias InboundOut = ByteBuffer

    /// Thrown when a line exceeds the limit.
    package struct LineTooLong: Error, Hashable {
        package let limit: Int
    }

    package let maxLineBytes: Int
    /// How far the current buffer was already searched for LF, so a line arriving in many
    /// small reads is scanned once.
    private var scanned = 0

    package init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let line = try nextLine(&buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }

    package mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        if let line = try nextLine(&buffer) {
            context.fireChannelRead(Self.wrapInboundOut(line))
            return .continue
        }
        // A last message without its LF still counts.
        if buffer.readableBytes > 0, let rest = buffer.readSlice(length: buffer.readableBytes) {
            scanned = 0
            context.fireChannelRead(Self.wrapInboundOut(trimCR(rest)))
        }
        return .needMoreData
    }

    private mutating func nextLine(_ buffer: inout ByteBuffer) throws -> ByteBuffer? {
        let readable = buffer.readableBytes
        let from = min(scanned, readable)
        // memchr: a long line is searched at memory speed, on the loop every client shares.
        let found = buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard from < readable, let base = bytes.baseAddress,
                let hit = memchr(base + from, Int32(UInt8(ascii: "\n")), readable - from)
            else { return nil }
            return base.distance(to: UnsafeRawPointer(hit))
        }
        guard let length = found else {
            scanned = readable
            // A trailing CR may be the first half of the CRLF ending a line of exactly the limit.
            let limit = buffer.readableBytesView.last == UInt8(ascii: "\r") ? maxLineBytes + 1 : maxLineBytes
            if readable > limit { throw LineTooLong(limit: maxLineBytes) }
            return nil
        }
        scanned = 0
        let line = trimCR(buffer.readSlice(length: length)!)
        buffer.moveReaderIndex(forwardBy: 1)
        guard line.readableBytes <= maxLineBytes else { throw LineTooLong(limit: maxLineBytes) }
        return line
    }

    private func trimCR(_ line: ByteBuffer) -> ByteBuffer {
        var line = line
        if line.readableBytesView.last == UInt8(ascii: "\r") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        return line
    }
}
