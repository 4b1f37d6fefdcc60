import CameraCorpus
import Testing

@testable import CameraDriver

/// The luma of GREY and YUYV buffers, with the rows as far apart as the driver says.
struct V4L2FrameConversionTests {
    @Test func yuyvGivesEveryOtherByteOfEachRowPaddingLeftOut() throws {
        // 3×2 pixels, 8 bytes a row (6 of pixels, 2 of padding): Y U Y V Y U pad pad.
        let buffer: [UInt8] = [
            10, 128, 11, 129, 12, 128, 0xEE, 0xEE,
            20, 128, 21, 129, 22, 128,
        ]
        let frame = try buffer.withUnsafeBytes { bytes throws(FrameError) in
            try V4L2FrameConversion.gray(bytes, format: .yuyv, width: 3, height: 2, bytesPerLine: 8)
        }
        #expect(frame.width == 3 && frame.height == 2 && frame.bytesPerLine == 3)
        #expect(frame.bytes == [10, 11, 12, 20, 21, 22])
    }

    @Test func greyIsTheBufferAsItIs() throws {
        let buffer: [UInt8] = [1, 2, 3, 0, 4, 5, 6]
        let frame = try buffer.withUnsafeBytes { bytes throws(FrameError) in
            try V4L2FrameConversion.gray(bytes, format: .grey, width: 3, height: 2, bytesPerLine: 4)
        }
        #expect(frame.packed == [1, 2, 3, 4, 5, 6])
    }

    @Test func aBufferTooShortForItsFrameIsAnError() {
        let buffer = [UInt8](repeating: 0, count: 10)
        for format in [V4L2PixelFormat.yuyv, .grey] {
            #expect(throws: FrameError.self) {
                try buffer.withUnsafeBytes { bytes throws(FrameError) in
                    try V4L2FrameConversion.gray(bytes, format: format, width: 4, height: 4, bytesPerLine: 8)
                }
            }
        }
    }

    @Test func aQRCodeInYUYVIsDecoded() async throws {
        let qr = try CodeFrames.qr("https://app.repairminder.com/orders/ord_1001")
        var bytes = [UInt8](repeating: 128, count: qr.width * 2 * qr.height)
        for (index, luma) in qr.packed.enumerated() { bytes[2 * index] = luma }
        let yuyv = bytes
        let codes = try await onAThreadOfItsOwn {
            let frame = try yuyv.withUnsafeBytes { bytes throws(FrameError) in
                try V4L2FrameConversion.gray(bytes, format: .yuyv, width: qr.width, height: qr.height, bytesPerLine: 2 * qr.width)
            }
            return try FrameDecoder(timeout: .seconds(120)).decode(frame).map(\.text)
        }
        #expect(codes == ["https://app.repairminder.com/orders/ord_1001"])
    }
}
