import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

/// A driver that plays a fixed list of events per run, then stops (as a crashed driver would).
final class ScriptedDriver: DeviceDriver {
    let name = "scripted"
    private let runs = Mutex(0)
    private let script: @Sendable (Int) -> [DriverEvent]

    init(events script: @escaping @Sendable (Int) -> [DriverEvent]) {
        self.script = script
    }

    var runCount: Int { runs.withLock { $0 } }

    func events() -> AsyncStream<DriverEvent> {
        let run = runs.withLock { runs in
            runs += 1
            return runs
        }
        return AsyncStream { continuation in
            for event in self.script(run) { continuation.yield(event) }
            continuation.finish()
        }
    }
}

@Suite("DriverHost")
struct DriverHostTests {
    let device = Device(id: "scripted:1", driver: "scripted", kind: .barcode, name: "Scripted scanner")

    @Test("devices and reads go to the registry and the journal, in order")
    func appliesEvents() async throws {
        let bridge = makeBridge()
        let device = self.device
        let driver = ScriptedDriver { run in
            run == 1
                ? [.device(device), .read(barcodeRead("4006381333931", device: device.id)), .gone(deviceID: device.id)]
                : []
        }
        let host = DriverHost(
            drivers: [driver], bridge: bridge, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            restartDelay: .seconds(60))
        let running = Task { await host.run() }
        defer { running.cancel() }  // also when the wait fails
        try await waitUntil("the device gone in the registry") { bridge.registry.device(device.id)?.state == .gone }
        running.cancel()
        await running.value
        let recent = try await bridge.journal.recent(limit: 10, kinds: nil)
        #expect(recent.map(\.device) == [device.id])
    }

    @Test("a driver that stops is restarted, and a bad read does not stop it")
    func restartsStoppedDriver() async throws {
        let bridge = makeBridge()
        let device = self.device
        let driver = ScriptedDriver { run in
            // An empty barcode is invalid: logged, never fatal.
            [.device(device), .read(barcodeRead("", device: device.id)), .read(barcodeRead("run \(run)", device: device.id))]
        }
        let host = DriverHost(
            drivers: [driver], bridge: bridge, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            restartDelay: .milliseconds(5))
        let running = Task { await host.run() }
        defer { running.cancel() }  // also when the wait fails: the driver is restarted every 5 ms
        try await waitUntil("the driver's third run; it ran \(driver.runCount) times") { driver.runCount >= 3 }
        running.cancel()
        await running.value
        let journaled = try await bridge.journal.recent(limit: 10, kinds: nil).count
        #expect(journaled >= 2, "every run's valid read was journaled")
    }
}
