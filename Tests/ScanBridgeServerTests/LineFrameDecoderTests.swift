import NIOCore
import NIOEmbedded
import NIOTestUtils
import ScanBridgeServer
import Testing

func isLineTooLong(_ error: any Error, limit: Int) -> Bool {
    (error as? LineFrameDecoder.LineTooLong)?.limit == limit
}

@Suite("LineFrameDecoder")
struct LineFrameDecoderTests {
    func lines(_ texts: String...) -> [ByteBuffer] {
        texts.map { ByteBuffer(string: $0) }
    }

    @Test("LF, CRLF, several lines per chunk and empty lines, however the bytes are split")
    func verifier() throws {
        try ByteToMessageDecoderVerifier.verifyDecoder(
            stringInputOutputPairs: [
                ("{\"jsonrpc\":\"2.0\"}\n", lines("{\"jsonrpc\":\"2.0\"}")),
                ("crlf\r\n", lines("crlf")),
                ("a\nbb\r\nccc\n", lines("a", "bb", "ccc")),
                ("\n", lines("")),
                ("\r\n", lines("")),
                ("x\n\n\r\ny\n", lines("x", "", "", "y")),
                ("inner\rcr\n", lines("inner\rcr")),
                ("double\r\r\n", lines("double\r")),
                ("ünïcødé ✓\n", lines("ünïcødé ✓")),
                (String(repeating: "z", count: 64) + "\n", lines(String(repeating: "z", count: 64))),
            ],
            decoderFactory: { LineFrameDecoder(maxLineBytes: 64) })
    }

    @Test("the same with byte buffers")
    func verifierBuffers() throws {
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [
                (ByteBuffer(bytes: [0x7B, 0x7D, 0x0A]), [ByteBuffer(bytes: [0x7B, 0x7D])]),
                (ByteBuffer(bytes: [0xFF, 0x00, 0x0D, 0x0A]), [ByteBuffer(bytes: [0xFF, 0x00])]),
            ],
            decoderFactory: { LineFrameDecoder(maxLineBytes: 16) })
    }

    func channel(limit: Int) -> EmbeddedChannel {
        EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limit)))
    }

    func readLines(_ channel: EmbeddedChannel) throws -> [String] {
        var out: [String] = []
        while let line = try channel.readInbound(as: ByteBuffer.self) { out.append(String(buffer: line)) }
        return out
    }

    @Test("a line longer than the limit throws, with its newline present")
    func tooLongWithNewline() {
        let channel = channel(limit: 8)
        #expect {
            try channel.writeInbound(ByteBuffer(string: "123456789\n"))
        } throws: { isLineTooLong($0, limit: 8) }
        _ = try? channel.finish()
    }

    @Test("a line longer than the limit throws before its newline arrives")
    func tooLongWithoutNewline() throws {
        let channel = channel(limit: 8)
        try channel.writeInbound(ByteBuffer(string: "1234"))
        try channel.writeInbound(ByteBuffer(string: "5678"))
        #expect(try readLines(channel).isEmpty)
        #expect {
            try channel.writeInbound(ByteBuffer(string: "9"))
        } throws: { isLineTooLong($0, limit: 8) }
        _ = try? channel.finish()
    }

    @Test("a huge chunk without a newline throws at once")
    func hugeChunk() {
        let channel = channel(limit: 1024)
        #expect {
            try channel.writeInbound(ByteBuffer(repeating: UInt8(ascii: "x"), count: 10_000))
        } throws: { isLineTooLong($0, limit: 1024) }
        _ = try? channel.finish()
    }

    @Test("a long line after good ones: the good ones come through first")
    func goodThenTooLong() throws {
        let channel = channel(limit: 4)
        #expect {
            try channel.writeInbound(ByteBuffer(string: "ok\nfine\ntoo long\n"))
        } throws: { isLineTooLong($0, limit: 4) }
        #expect(try readLines(channel) == ["ok", "fine"])
        _ = try? channel.finish()
    }

    @Test(
        "a line of exactly the limit passes",
        arguments: [
            ["12345678\n"],
            ["12345678\r\n"],
            ["1234", "5678", "\n"],
            ["12345678", "\n"],
            ["12345678", "\r\n"],
            ["12345678\r", "\n"],
        ])
    func exactlyTheLimit(_ chunks: [String]) throws {
        let channel = channel(limit: 8)
        for chunk in chunks { try channel.writeInbound(ByteBuffer(string: chunk)) }
        #expect(try readLines(channel) == ["12345678"])
        #expect(try channel.finish().isClean)
    }

    @Test("the limit applies to each line, not to the chunk")
    func manyLinesInOneChunk() throws {
        let channel = channel(limit: 8)
        let text = Array(repeating: "12345678", count: 50).joined(separator: "\n") + "\n"
        try channel.writeInbound(ByteBuffer(string: text))
        #expect(try readLines(channel) == Array(repeating: "12345678", count: 50))
        #expect(try channel.finish().isClean)
    }

    @Test("a last line without its newline still counts at end of input")
    func lastLineWithoutNewline() throws {
        let channel = channel(limit: 8)
        try channel.writeInbound(ByteBuffer(string: "a\nlast"))
        #expect(try readLines(channel) == ["a"])
        _ = try channel.finish(acceptAlreadyClosed: false)
        #expect(try readLines(channel) == ["last"])
    }
}
