import NIOCore

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
        let view = buffer.readableBytesView
        let start = view.index(view.startIndex, offsetBy: min(scanned, view.count))
        guard let newline = view[start...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = view.count
            // A trailing CR may be the first half of the CRLF ending a line of exactly the limit.
            let limit = view.last == UInt8(ascii: "\r") ? maxLineBytes + 1 : maxLineBytes
            if view.count > limit { throw LineTooLong(limit: maxLineBytes) }
            return nil
        }
        let length = newline - view.startIndex
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
