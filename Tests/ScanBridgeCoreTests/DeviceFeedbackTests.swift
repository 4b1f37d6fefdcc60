import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

/// A driver that plays reads once and records what the host tells it of their outcome.
final class FeedbackRecordingDriver: DeviceDriver, DeviceFeedback {
    let name = "feedback"
    let reads: [RawRead]
    let told = Mutex<[String]>([])

    init(reads: [RawRead]) { self.reads = reads }

    func events() -> AsyncStream<DriverEvent> {
        let reads = self.reads
        return AsyncStream { continuation in
            for read in reads { continuation.yield(.read(read)) }
        }
    }

    func resolved(deviceID: String, resolution: Resolution) {
        told.withLock { $0.append("\(deviceID) \(resolution.status)") }
    }
}

@Suite("Device feedback")
struct DeviceFeedbackTests {
    @Test("a driver that takes feedback learns each read's resolution, in order, failures included")
    func hostTellsTheDriver() async throws {
        let bridge = makeBridge()
        let driver = FeedbackRecordingDriver(reads: [
            // One device: reads of different devices go through lanes of their own, in no set order.
            barcodeRead("4006381333931", device: "feedback:1"), barcodeRead("", device: "feedback:1"),
        ])
        let host = DriverHost(
            drivers: [driver], bridge: bridge, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { await host.run() }
        defer { running.cancel() }  // also when the wait fails
        try await waitUntil("the driver to be told of both reads; told \(driver.told.withLock { $0 })") {
            driver.told.withLock { $0.count } == 2
        }
        running.cancel()
        await running.value
        // No handler: the good read is unhandled; the empty one was never recorded.
        #expect(driver.told.withLock { $0 } == ["feedback:1 unhandled", "feedback:1 error"])
    }
}
