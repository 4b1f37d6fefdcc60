import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The V4L2 driver in the real daemon, with what this machine has: no video device, so what
/// is given is not one. A FIFO, a regular file or a folder named as a camera is an `error`
/// device saying so, and the daemon goes on (a mock scan after it is published as ever); a
/// bad setting stops the start. Capture itself is tested on a real kernel in the hardware
/// lab (`V4L2LabTests`).
@Suite("V4L2 cameras end to end", .heavy, .timeLimit(.minutes(5)))
struct V4L2EndToEndTests {
    @Test func whatIsNoV4L2DeviceIsAnErrorAndTheDaemonGoesOn() async throws {
        let fifo = try DeviceFIFO(name: "video0")
        let file = NSTemporaryDirectory() + "scanbridge-not-a-camera-" + UUID().uuidString
        try Data("P5\n2 2\n255\nabcd".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let daemon = try await startDaemon([
            "--drivers", "v4l2,mock", "--mock", "barcode:till-1",
            "--device", "v4l2:\(fifo.path)", "--device", "v4l2:\(file),fps=5", "--device", "v4l2:/nonexistent/video9",
        ])
        let client = try await daemon.connect()
        let cameras = try await waitFor("three cameras in error", timeout: .seconds(20)) {
            let cameras = try await client.devices().filter { $0.driver == "v4l2" }
            return cameras.count == 3 && cameras.allSatisfy({ $0.state == .error }) ? cameras : nil
        }
        let errors = Dictionary(uniqueKeysWithValues: cameras.map { ($0.path ?? "", $0.error ?? "") })
        #expect(errors[fifo.path] == "\(fifo.path) is not a V4L2 device (a FIFO)")
        #expect(errors[file] == "\(file) is not a V4L2 device (a regular file)")
        #expect(errors["/nonexistent/video9"] == "cannot open /nonexistent/video9: No such file or directory")
        #expect(cameras.allSatisfy { $0.kind == .qr && $0.id.hasPrefix("v4l2:") })
        let scan = try await client.inject(device: "mock:till-1", text: "4006381333931")
        #expect(scan.seq > 0 && scan.text == "4006381333931")
        await client.close()
    }

    @Test func aBadSettingStopsTheStart() async throws {
        let harness = try DaemonHarness(arguments: ["--drivers", "v4l2", "--device", "v4l2:/dev/video0,width=huge"])
        await #expect(throws: (any Error).self) { try await harness.start() }
        let log = (try? String(contentsOfFile: harness.logPath, encoding: .utf8)) ?? ""
        #expect(log.contains("--device v4l2:/dev/video0: width takes pixels from 16 to 8192, not 'huge'"), "\(log)")
    }
}
