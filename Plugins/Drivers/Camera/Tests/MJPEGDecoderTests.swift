import CTurboJPEG
import CameraCorpus
import Testing

@testable import CameraDriver

/// MJPEG frames as a UVC camera sends them (4:2:2 colour JPEGs, made here with libjpeg-turbo's
/// compressor from a qrencode label), decoded to grayscale; frames cut short or garbled are
/// errors, and the decoder reads the next good frame after them.
@Suite
struct MJPEGDecoderTests {
    /// `frame` as a JPEG: a colour one with 4:2:2 chroma (as UVC cameras send), or grayscale.
    static func jpeg(_ frame: GrayFrame, colour: Bool = true) throws -> [UInt8] {
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        let pixels = colour ? frame.packed.flatMap { [$0, $0, $0] } : frame.packed
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = pixels.withUnsafeBufferPointer { source in
            tjCompress2(
                handle, source.baseAddress, Int32(frame.width), 0, Int32(frame.height),
                Int32((colour ? TJPF_RGB : TJPF_GRAY).rawValue), &output, &size,
                Int32((colour ? TJSAMP_422 : TJSAMP_GRAY).rawValue), 85, 0)
        }
        defer { tjFree(output) }
        try #require(result == 0, "\(String(cString: tjGetErrorStr2(handle)))")
        return Array(UnsafeBufferPointer(start: try #require(output), count: Int(size)))
    }

    static let label = "https://app.repairminder.com/orders/ord_1001"

    static func decode(_ decoder: MJPEGDecoder, _ jpeg: [UInt8]) throws -> GrayFrame {
        try jpeg.withUnsafeBytes { try decoder.gray($0) }
    }

    @Test func aColourAndAGrayFrameDecodeToTheLabel() async throws {
        let qr = try CodeFrames.qr(Self.label)
        let texts = try await onAThreadOfItsOwn {
            let decoder = MJPEGDecoder()
            return try [true, false].map { colour in
                let frame = try Self.decode(decoder, try Self.jpeg(qr, colour: colour))
                #expect(frame.width == qr.width && frame.height == qr.height)
                return try FrameDecoder(timeout: .seconds(120)).decode(frame).map(\.text)
            }
        }
        #expect(texts == [[Self.label], [Self.label]])
    }

    @Test func truncatedAndGarbledFramesAreErrorsAndTheNextFrameDecodes() async throws {
        let qr = try CodeFrames.qr(Self.label)
        let results = try await onAThreadOfItsOwn {
            let decoder = MJPEGDecoder()
            let good = try Self.jpeg(qr)
            var garbled = good
            for index in stride(from: garbled.count / 3, to: garbled.count - 2, by: 7) { garbled[index] ^= 0x5A }
            let bad: [(String, [UInt8])] = [
                ("cut in the middle", Array(good.prefix(good.count / 2))),
                ("cut before its end marker", Array(good.dropLast(2))),
                ("cut in its header", Array(good.prefix(40))),
                ("garbled", garbled),
                ("not a JPEG", Array("not a jpeg at all".utf8)),
                ("empty", []),
            ]
            var failures: [String] = []
            for (what, bytes) in bad {
                do {
                    _ = try Self.decode(decoder, bytes)
                    failures.append("\(what): decoded")
                } catch {
                    #expect("\(error)".hasPrefix("malformed frame"), "\(what): \(error)")
                }
                // The decoder is as good as new after each bad frame.
                let next = try FrameDecoder(timeout: .seconds(120)).decode(try Self.decode(decoder, good)).map(\.text)
                if next != [Self.label] { failures.append("\(what): the next frame gave \(next)") }
            }
            return failures
        }
        #expect(results.isEmpty, "\(results)")
    }
}
