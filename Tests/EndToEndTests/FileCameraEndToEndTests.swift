import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The file camera in the real daemon (`--device file-camera:DIR`): frames drawn by
/// qrencode and zint, decoded by zxing-cpp, de-duplicated, and resolved by the handlers.
@Suite("File camera end to end", .heavy, .timeLimit(.minutes(5)))
struct FileCameraEndToEndTests {
    /// A folder of frames made by `draw`, put in place at once (the camera waits for it:
    /// the daemon can be set up first).
    static func placeFrames(at path: String, _ draw: (String) throws -> Void) throws {
        let staging = path + ".staging"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        try draw(staging)
        try FileManager.default.moveItem(atPath: staging, toPath: path)
    }

    @Test func aRepairOrderLabelHeldInFrontOfTheCameraIsOneResolvedScan() async throws {
        let frames = NSTemporaryDirectory() + "scanbridge-frames-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let daemon = try await startDaemon(["--drivers", "file-camera", "--device", "file-camera:\(frames),fps=20"])
        let client = try await daemon.connect()
        _ = try await client.call("orders.upsert", ["order": OrdersEndToEndTests.order])
        _ = try await client.call("events.subscribe", ["kinds": ["qr"]])
        // The label in view for five frames, out of view, then a product and a garbled file.
        try Self.placeFrames(at: frames) { folder in
            for index in 1...5 {
                try CodeImages.qr("https://app.repairminder.com/orders/ord_1001", to: folder + "/0\(index).png")
            }
            try Data("P5\n640 480\n255\n".utf8).write(to: URL(fileURLWithPath: folder + "/06.pgm"))
            try CodeImages.zint(.ean13, "590123412345", to: folder + "/07.png")
        }
        var notifications = client.notifications.makeAsyncIterator()
        let order = try #require(try await next("scan", from: &notifications).scanEvent())
        #expect(order.kind == .qr && order.driver == "file-camera" && order.symbology == "qr" && order.aim == "]Q1")
        #expect(order.text == "https://app.repairminder.com/orders/ord_1001")
        #expect(order.resolution.handler == "order-lookup" && order.resolution.status == "found")
        #expect(order.resolution.details["order"]?["reference"] == "RM-1001")
        // The next scan is the product: the label's other four frames gave no event.
        let product = try #require(try await next("scan", from: &notifications).scanEvent())
        #expect(product.text == "5901234123457" && product.symbology == "ean-13")
        let device = try #require(try await client.devices().first)
        #expect(device.driver == "file-camera" && device.kind == .qr && device.state == .ready && device.path == frames)
        #expect(daemon.log.contains("skipped a frame"))
        await client.close()
    }

    @Test func aMissingFolderIsAnErrorAndABadSettingStopsTheStart() async throws {
        let daemon = try await startDaemon(["--drivers", "file-camera", "--device", "file-camera:/nonexistent/frames"])
        let client = try await daemon.connect()
        let device = try await waitFor("the camera in error", timeout: .seconds(20)) {
            try await client.devices().first { $0.state == .error }
        }
        #expect(device.error?.contains("/nonexistent/frames does not exist") == true)
        await client.close()
        let harness = try DaemonHarness(arguments: [
            "--drivers", "file-camera", "--device", "file-camera:/tmp,symbologies=qr+maxicode",
        ])
        await #expect(throws: (any Error).self) { try await harness.start() }
        let log = (try? String(contentsOfFile: harness.logPath, encoding: .utf8)) ?? ""
        #expect(log.contains("symbology 'maxicode' is not decoded from camera frames"), "\(log)")
    }
}
