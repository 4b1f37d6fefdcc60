import CameraCorpus
import Foundation
import ScanBridgeTesting
import Testing

@testable import CameraDriver

struct FrameFilesTests {
    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = CodeFrames.directory + "/" + UUID().uuidString + "-" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func pgm(_ frame: GrayFrame, header: String? = nil) -> [UInt8] {
        Array((header ?? "P5\n\(frame.width) \(frame.height)\n255\n").utf8) + frame.bytes
    }

    @Test func aPGMWithCommentsAndA16BitOne() throws {
        let qr = try CodeFrames.qr("RO-2024-0042")
        let commented = Self.pgm(qr, header: "P5\n# a camera frame\n\(qr.width)  # width\n\(qr.height)\n255\n")
        #expect(try FrameFiles.read(path: try Self.write(commented, "a.pgm")) == qr)
        let wide = Array("P5 \(qr.width) \(qr.height) 65535\n".utf8) + qr.bytes.flatMap { [$0, 0x55] }
        #expect(try FrameFiles.read(path: try Self.write(wide, "b.pgm")) == qr)
    }

    @Test func truncatedAndGarbageFilesAreErrors() throws {
        let qr = try CodeFrames.qr("RO-2024-0042")
        let cases: [[UInt8]] = [
            Array(Self.pgm(qr).dropLast(10)),
            Array("P5\n12".utf8),
            Array("P5\n99999 99999\n255\n".utf8),
            Array("P5\n4 4 0\n".utf8) + [UInt8](repeating: 0, count: 16),
            [],
            Array("GIF89a".utf8),
            Array(try Data(contentsOf: URL(fileURLWithPath: try Self.pngFile())).prefix(200)),
            [0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 0xAB, count: 500),
        ]
        for bytes in cases {
            #expect(throws: FrameError.self) { try FrameFiles.read(path: try Self.write(bytes, "bad")) }
        }
        #expect(throws: FrameError.self) { try FrameFiles.read(path: "/nonexistent/frame.png") }
    }

    static func pngFile() throws -> String {
        let path = CodeFrames.path("whole")
        try CodeImages.qr("A LONGER TEXT SO THE PNG IS OVER 200 BYTES 0123456789", to: path)
        return path
    }

    static func y4m(_ frames: [GrayFrame], chroma: String = "420jpeg") -> [UInt8] {
        Y4MFile.bytes(width: frames[0].width, height: frames[0].height, luma: frames.map(\.bytes), chroma: chroma)
    }

    @Test func aY4MFileFrameByFrameAndRewound() throws {
        let a = try CodeFrames.qr("FRAME-A")
        let b = GrayFrame.make(width: a.width, height: a.height, fill: 200)
        let reader = try Y4MReader(path: try Self.write(Self.y4m([a, b]), "a.y4m"))
        #expect(reader.frameRate == 10)
        #expect(try reader.next() == a)
        #expect(try reader.next() == b)
        #expect(try reader.next() == nil)
        try reader.rewind()
        #expect(try reader.next() == a)
        let mono = try Y4MReader(path: try Self.write(Self.y4m([a], chroma: "mono"), "m.y4m"))
        #expect(try mono.next() == a)
    }

    @Test func aBadY4MFileIsAnError() throws {
        let a = try CodeFrames.qr("FRAME-A")
        #expect(throws: FrameError.self) { try Y4MReader(path: try Self.write(Array("YUV4MPEG2 W0 H10\n".utf8), "z.y4m")) }
        #expect(throws: FrameError.self) {
            try Y4MReader(path: try Self.write(Array("YUV4MPEG2 W10 H10 Cweird\n".utf8), "c.y4m"))
        }
        #expect(throws: FrameError.self) { try Y4MReader(path: try Self.write(Array("RIFF....".utf8), "r.y4m")) }
        let cut = try Y4MReader(path: try Self.write(Array(Self.y4m([a, a]).dropLast(100)), "t.y4m"))
        #expect(try cut.next() == a)
        #expect(throws: FrameError.self) { try cut.next() }
        let garbled = try Y4MReader(path: try Self.write(Array("YUV4MPEG2 W4 H4\nJUNK\n".utf8), "g.y4m"))
        #expect(throws: FrameError.self) { try garbled.next() }
    }
}
