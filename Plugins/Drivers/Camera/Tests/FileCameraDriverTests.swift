import CameraCorpus
import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Testing

@testable import CameraDriver

/// The file camera as the daemon runs it, on real files; its events read until what the
/// test waits for (no timing assertions: the stream is read until the expected event).
struct FileCameraDriverTests {
    static func folder(_ frames: [(String, (String) throws -> Void)]) throws -> String {
        let path = CodeFrames.directory + "/camera-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, make) in frames { try make(path + "/" + name) }
        return path
    }

    /// The reads of the first `count`, after the device went `ready`; fails after a minute
    /// (image work in a debug build on a loaded machine is slow, never that slow).
    static func reads(_ spec: FileCameraSpec, count: Int) async throws -> [RawRead] {
        try await within("\(count) reads from the file camera", timeout: .seconds(60)) {
            let stream = FileCameraDriver(devices: [spec]).events()
            var reads: [RawRead] = []
            for await event in stream {
                if case .read(let read) = event { reads.append(read) }
                if reads.count == count { break }
            }
            return reads
        }
    }

    @Test func aFolderOfFramesGivesEachCodeOnce() async throws {
        let path = try Self.folder([
            ("01.png", { try CodeImages.qr("RO-2024-0042", to: $0) }),
            ("02.png", { try CodeImages.qr("RO-2024-0042", to: $0) }),
            ("03.png", { try CodeImages.zint(.ean13, "590123412345", to: $0) }),
            ("04.txt", { try Data("not a frame".utf8).write(to: URL(fileURLWithPath: $0)) }),
            ("05.pgm", { try Data("P5\n1".utf8).write(to: URL(fileURLWithPath: $0)) }),
            ("06.png", { try CodeImages.qr("END", to: $0) }),
        ])
        let spec = try FileCameraSpec(path: path, settings: ["fps": "50"])
        let reads = try await Self.reads(spec, count: 3)
        #expect(reads.map(\.text) == ["RO-2024-0042", "5901234123457", "END"])
        #expect(reads.map(\.symbology) == ["qr", "ean-13", "qr"])
        #expect(reads.allSatisfy { $0.kind == .qr && $0.driver == "file-camera" && $0.device.hasPrefix("file-camera:") })
    }

    @Test func aLoopShowsACodeAgainOnlyAfterItWasOutOfView() async throws {
        let path = try Self.folder([
            ("01.png", { try CodeImages.qr("RO-2024-0042", to: $0) }),
            (
                "02.pgm",
                { try Data(FrameFilesTests.pgm(GrayFrame.make(width: 64, height: 64))).write(to: URL(fileURLWithPath: $0)) }
            ),
        ])
        // At 20 fps a frame with no code lasts 50 ms: over the 10 ms out-of-view time, so
        // every pass is a new scan.
        let spec = try FileCameraSpec(path: path, settings: ["fps": "20", "loop": "yes", "out-of-view": "10"])
        #expect(try await Self.reads(spec, count: 3).map(\.text) == ["RO-2024-0042", "RO-2024-0042", "RO-2024-0042"])
    }

    @Test func aY4MFile() async throws {
        let qr = try CodeFrames.qr("FROM-Y4M")
        let path = try FrameFilesTests.write(
            FrameFilesTests.y4m([GrayFrame.make(width: qr.width, height: qr.height), qr, qr]), "cam.y4m")
        #expect(try await Self.reads(try FileCameraSpec(path: path), count: 1).map(\.text) == ["FROM-Y4M"])
    }

    @Test func aMissingPathIsAnErrorStateNotACrash() async throws {
        let spec = try FileCameraSpec(path: "/nonexistent/frames")
        let device = try await within("the camera's device", timeout: .seconds(20)) { () async -> Device? in
            for await event in FileCameraDriver(devices: [spec]).events() {
                if case .device(let device) = event { return device }
            }
            return nil
        }
        #expect(device?.state == .error)
        #expect(device?.error?.contains("does not exist") == true)
    }

    @Test func badSettingsAreRefused() {
        for settings in [
            ["fps": "0"], ["loop": "maybe"], ["symbologies": "qr+maxicode"], ["out-of-view": "-1"], ["colour": "red"],
        ] {
            #expect(throws: FrameError.self) { try FileCameraSpec(path: "/tmp", settings: settings) }
        }
    }

    @Test func aCameraIsNamedByItsFolderNotItsPath() throws {
        let specs = try ["/home/till/scanbridge/.demo/bench-camera", "/srv/bench-camera", "/srv/frames.y4m", "bench-camera"]
            .map { try FileCameraSpec(path: $0) }
        #expect(
            FileCameraDriver.deviceIDs(specs) == [
                "file-camera:bench-camera", "file-camera:bench-camera-2", "file-camera:frames.y4m", "file-camera:bench-camera-3",
            ])
    }
}
