import CFrameDecoding
import FuzzSupport
import ScanBridgeCore
import ScanBridgeModel

@testable import CameraDriver

/// What the camera's decoder process (scanbridge-zxing) sends, as the daemon reads it: its
/// hello, then replies to frames (a header, then each code: its format, AIM identifier,
/// corners, length and content), read by `DecoderProcess` as from its socket, each code made
/// a `DecodedCode` as `FrameDecoder` makes it and normalized as a read. The first byte says
/// how many codes a frame may give (one, or `FrameDecoder.maxCodes`). A reply that breaks the
/// format ends that decoder, and the next bytes are a new one's hello. Any bytes give codes
/// or a decoder failure, never a crash, and no reply is over its bounds.
enum FuzzDecoderReply: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        let maxCodes = input.byte() % 2 == 0 ? FrameDecoder.maxCodes : 1
        // The bytes the decoder sends, in turn; its socket closes when there are no more.
        func receive(_ buffer: UnsafeMutableRawBufferPointer) -> Result<Void, DecoderFailure> {
            let taken = input.bytes(buffer.count)
            guard taken.count == buffer.count else { return .failure(.ended("closed its socket")) }
            buffer.copyBytes(from: taken)
            return .success(())
        }
        var running = false
        while !input.isEmpty {
            guard running else {
                running = DecoderProcess.hello(receive) == nil
                continue
            }
            do throws(DecoderFailure) {
                let found = try DecoderProcess.reply(maxCodes: maxCodes, receive)
                fuzzCheck(found.count <= maxCodes, "a reply of \(found.count) codes, over \(maxCodes)")
                for code in found { check(code) }
            } catch {
                running = false
            }
        }
    }

    private static func check(_ found: DecoderProcess.Found) {
        fuzzCheck(
            found.bytes.count <= Int(SCANBRIDGE_DECODE_MAX_CODE_BYTES) && !found.aim.utf8.contains(0),
            "a code of \(found.bytes.count) bytes, AIM identifier \(found.aim.debugDescription)")
        guard let code = FrameDecoder.code(found) else { return }
        fuzzCheck(CameraSymbologies.supported.contains(code.symbology), "a code of symbology '\(code.symbology)'")
        let read = code.rawRead(device: "camera-fuzz", driver: "v4l2")
        do throws(ScanBridgeError) {
            let event = try Normalizer().normalize(read)
            fuzzCheck(event.symbology == code.symbology, "a \(code.symbology) code became a \(event.symbology) event")
        } catch {
            fuzzCheck(error.code == .invalidParams, "a code refused with \(error.code): \(error.message)")
        }
    }
}
