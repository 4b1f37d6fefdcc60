import CameraCorpus
import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Testing

@testable import CameraDriver

/// Frames drawn by qrencode and zint, changed as a camera would, decoded.
///
/// Serialized, and the drawing and decoding run on threads of their own: they are slow in a
/// debug build, and on Swift's cooperative pool they would hold up the timing-sensitive
/// suites running beside them.
@Suite(.serialized)
struct FrameDecoderTests {
    /// The codes in the frame `make` draws.
    static func decode(
        _ symbologies: CameraSymbologies = .all, _ make: @escaping @Sendable () throws -> GrayFrame
    ) async throws -> [DecodedCode] {
        try await onAThreadOfItsOwn { try FrameDecoder(symbologies: symbologies, timeout: .seconds(120)).decode(try make()) }
    }

    static func texts(
        _ symbologies: CameraSymbologies = .all, _ make: @escaping @Sendable () throws -> GrayFrame
    ) async throws -> [String?] {
        try await decode(symbologies, make).map(\.text)
    }

    static func code(_ symbology: String, _ aim: String, _ text: String) -> DecodedCode {
        DecodedCode(symbology: symbology, aim: aim, bytes: Array(text.utf8))
    }

    @Test func aQRCode() async throws {
        #expect(try await Self.decode { try CodeFrames.qr("RO-2024-0042") } == [Self.code("qr", "]Q1", "RO-2024-0042")])
    }

    @Test func eanAndUPC() async throws {
        #expect(
            try await Self.decode { try CodeFrames.zint(.ean13, "590123412345") } == [Self.code("ean-13", "]E0", "5901234123457")]
        )
        #expect(
            try await Self.decode { try CodeFrames.zint(.upcA, "03600029145") } == [Self.code("upc-a", "]E0", "036000291452")])
    }

    @Test func code128AndGS1_128WithItsSeparator() async throws {
        #expect(
            try await Self.decode { try CodeFrames.zint(.code128, "RO-2024-0042") } == [
                Self.code("code-128", "]C0", "RO-2024-0042")
            ])
        let gs1 = try await Self.decode { try CodeFrames.zint(.gs1128, "[01]09506000134352[10]ABC1[21]XYZ") }
        #expect(gs1 == [Self.code("gs1-128", "]C1", "0109506000134352" + "10ABC1\u{1D}21XYZ")])
    }

    @Test func dataMatrixPlainAndGS1() async throws {
        #expect(
            try await Self.decode { try CodeFrames.zint(.dataMatrix, "SN 4711-A", scale: 4) } == [
                Self.code("data-matrix", "]d1", "SN 4711-A")
            ])
        let gs1 = try await Self.decode {
            try CodeFrames.zint(.gs1DataMatrix, "[01]09506000134352[10]ABC1[17]251231", scale: 4)
        }
        #expect(gs1 == [Self.code("data-matrix", "]d2", "0109506000134352" + "10ABC1\u{1D}17251231")])
    }

    @Test func theNormalizerTakesTheReadAsItIs() async throws {
        let codes = try await Self.decode {
            try CodeFrames.zint(.gs1DataMatrix, "[01]09506000134352[17]251231", scale: 4)
        }
        let read = try #require(codes.first).rawRead(device: "file-camera:x", driver: "file-camera")
        let event = try Normalizer().normalize(read)
        #expect(event.kind == .qr)
        #expect(event.symbology == "data-matrix")
        #expect(event.aim == "]d2")
        #expect(event.gs1 == ["01": "09506000134352", "17": "251231"])
    }

    @Test func onlyTheConfiguredSymbologies() async throws {
        #expect(try await Self.decode(try CameraSymbologies(parsing: "qr")) { try CodeFrames.zint(.ean13, "590123412345") } == [])
        #expect(
            try await Self.decode(try CameraSymbologies(parsing: "qr+ean+code-128")) {
                try CodeFrames.zint(.dataMatrix, "SN 4711-A", scale: 4)
            } == [])
        #expect(try await Self.decode(try CameraSymbologies(parsing: "ean")) { try CodeFrames.zint(.code128, "ABC-123") } == [])
        #expect(throws: FrameError.self) { try CameraSymbologies(parsing: "qr+maxicode") }
        #expect(try CameraSymbologies(parsing: "all") == .all)
        #expect(throws: FrameError.self) { try CameraSymbologies(parsing: "") }
    }

    @Test(arguments: [15.0, 30, 45, 90, 180, 270])
    func aTurnedQRCode(degrees: Double) async throws {
        #expect(
            try await Self.decode { try CodeFrames.qr("RO-2024-0042").rotated(by: degrees) } == [
                Self.code("qr", "]Q1", "RO-2024-0042")
            ])
    }

    @Test func aTurnedBarcodeAndDataMatrix() async throws {
        #expect(try await Self.texts { try CodeFrames.zint(.ean13, "590123412345").rotated(by: 20) } == ["5901234123457"])
        #expect(
            try await Self.texts { try CodeFrames.zint(.dataMatrix, "SN 4711-A", scale: 4).rotated(by: 30) } == [
                "SN 4711-A"
            ])
    }

    @Test(arguments: [0.6, 1.5, 3])
    func aScaledQRCode(factor: Double) async throws {
        #expect(try await Self.texts { try CodeFrames.qr("RO-2024-0042").scaled(by: factor) } == ["RO-2024-0042"])
    }

    @Test func outOfFocusAndNoisy() async throws {
        #expect(try await Self.texts { try CodeFrames.qr("RO-2024-0042", moduleSize: 6).blurred(radius: 1) } == ["RO-2024-0042"])
        #expect(try await Self.texts { try CodeFrames.qr("RO-2024-0042", moduleSize: 6).blurred(radius: 3) } == ["RO-2024-0042"])
        #expect(
            try await Self.texts { try CodeFrames.qr("RO-2024-0042", moduleSize: 6).noisy(amplitude: 60) } == ["RO-2024-0042"])
        #expect(try await Self.texts { try CodeFrames.zint(.ean13, "590123412345").noisy(amplitude: 40) } == ["5901234123457"])
        #expect(
            try await Self.texts { try CodeFrames.zint(.code128, "RO-2024-0042").blurred(radius: 1).noisy(amplitude: 5) } == [
                "RO-2024-0042"
            ])
    }

    @Test func severalCodesInOneFrame() async throws {
        let codes = try await Self.decode {
            var frame = GrayFrame.make(width: 1400, height: 500)
            frame = frame.placing(try CodeFrames.qr("RO-2024-0042"), x: 20, y: 20)
            frame = frame.placing(try CodeFrames.zint(.ean13, "590123412345"), x: 200, y: 20)
            frame = frame.placing(try CodeFrames.zint(.code128, "BOX-17"), x: 700, y: 20)
            frame = frame.placing(try CodeFrames.zint(.dataMatrix, "SN 4711-A", scale: 4), x: 40, y: 300)
            return frame.noisy(amplitude: 5)
        }
        #expect(Set(codes.compactMap(\.text)) == ["RO-2024-0042", "5901234123457", "BOX-17", "SN 4711-A"])
    }

    /// zxing-cpp 1.4 gives one QR code of a frame with twenty-five or more (README, Decoder limits).
    @Test func tenCodesInOneFrame() async throws {
        let codes = try await Self.decode {
            var frame = GrayFrame.make(width: 10 * 120, height: 120)
            for index in 0..<10 {
                frame = frame.placing(
                    try CodeFrames.qr("ITEM-\(index)", moduleSize: 3), x: index * 120, y: 0)
            }
            return frame
        }
        #expect(Set(codes.compactMap(\.text)) == Set((0..<10).map { "ITEM-\($0)" }))
    }

    @Test func framesWithNoCodeGiveNothing() async throws {
        func decode(_ make: @escaping @Sendable () -> GrayFrame) async throws -> [DecodedCode] {
            try await Self.decode(.all, make)
        }
        #expect(try await decode { GrayFrame.make(width: 640, height: 480) } == [])
        #expect(try await decode { GrayFrame.make(width: 640, height: 480, fill: 0) } == [])
        #expect(try await decode { GrayFrame.make(width: 640, height: 480, fill: 128).noisy(amplitude: 127) } == [])
        #expect(try await decode { GrayFrame.make(width: 1, height: 1) } == [])
    }

    @Test func aBinaryQRPayloadKeepsItsBytes() async throws {
        let payload: [UInt8] = [0x00, 0xFF, 0x80, 0x1D, 0xC3, 0x28, 0x7F, 0x01] + Array(0..<32)
        let codes = try await Self.decode {
            let file = CodeFrames.path("binary")
            try CodeImages.binaryQR(payload, to: file)
            return try FrameFiles.read(path: file)
        }
        #expect(codes.map(\.bytes) == [payload])
        #expect(codes.first?.text == nil)
        let event = try Normalizer().normalize(try #require(codes.first).rawRead(device: "file-camera:x", driver: "file-camera"))
        #expect(event.raw == Data(payload).base64EncodedString())
    }

    @Test func paddedRowsAreRead() async throws {
        #expect(
            try await Self.texts {
                let qr = try CodeFrames.qr("PADDED")
                var padded: [UInt8] = []
                for row in 0..<qr.height { padded += qr.bytes[row * qr.width..<(row + 1) * qr.width] + [0, 0, 0, 0, 0, 0, 0, 0] }
                return try GrayFrame(width: qr.width, height: qr.height, bytesPerLine: qr.width + 8, bytes: padded)
            } == ["PADDED"])
    }

    /// A driver's buffer may hold more than the frame: only the frame goes to the decoder.
    /// (Sent whole, the extra bytes would be taken for the next frame's header.)
    @Test func bytesPastTheLastRowAreLeftOut() async throws {
        let texts = try await onAThreadOfItsOwn {
            let qr = try CodeFrames.qr("PAST THE END")
            let frame = try GrayFrame(width: qr.width, height: qr.height, bytes: qr.bytes + [UInt8](repeating: 0, count: 37))
            let decoder = FrameDecoder(timeout: .seconds(120))
            return try (0..<3).map { _ in try decoder.decode(frame).map(\.text) }
        }
        #expect(texts == Array(repeating: ["PAST THE END"], count: 3))
    }

    @Test func badFrameGeometryIsAnError() {
        #expect(throws: FrameError.self) { try GrayFrame(width: 0, height: 10, bytes: []) }
        #expect(throws: FrameError.self) { try GrayFrame(width: 10, height: 10, bytes: [UInt8](repeating: 0, count: 99)) }
        #expect(throws: FrameError.self) {
            try GrayFrame(width: 10, height: 10, bytesPerLine: 9, bytes: [UInt8](repeating: 0, count: 100))
        }
    }
}
