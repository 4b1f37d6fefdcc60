import Foundation
import MockDriver
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

/// Consumes a driver's events as the driver host would, applying barriers, and records them.
final class EventRecorder: Sendable {
    enum Record: Hashable, Sendable {
        case device(Device)
        case gone(String)
        case read(device: String, kind: DeviceKind, text: String?, uid: [UInt8]?, symbology: String?)
    }

    private let records = Mutex<[Record]>([])
    private let consumer = Mutex<Task<Void, Never>?>(nil)

    init(_ driver: some DeviceDriver) {
        let stream = driver.events()
        let task = Task {
            for await event in stream {
                switch event {
                case .device(let device): self.append(.device(device))
                case .gone(let id): self.append(.gone(id))
                case .read(let read):
                    self.append(
                        .read(
                            device: read.device, kind: read.kind, text: read.text, uid: read.uid,
                            symbology: read.symbology))
                case .barrier(let done): done()
                }
            }
        }
        consumer.withLock { $0 = task }
    }

    private func append(_ record: Record) {
        records.withLock { $0.append(record) }
    }

    var all: [Record] { records.withLock { $0 } }

    var reads: [Record] {
        all.filter { if case .read = $0 { true } else { false } }
    }

    func stop() async {
        let task = consumer.withLock { $0 }
        task?.cancel()
        await task?.value
    }
}

func code(of error: some Error) -> ScanBridgeError.Code? {
    (error as? ScanBridgeError)?.code
}

@Suite("MockDriver")
struct MockDriverTests {
    @Test("initial devices are reported when the driver starts")
    func initialDevices() async throws {
        let driver = try MockDriver(devices: [
            MockDeviceSpec(kind: .barcode), MockDeviceSpec(kind: .nfc, id: "door", name: "Door reader"),
            MockDeviceSpec(kind: .barcode), MockDeviceSpec(kind: .qr, id: "mock:cam"),
        ])
        #expect(driver.name == "mock")
        let recorder = EventRecorder(driver)
        defer { Task { await recorder.stop() } }
        try await waitUntil("the four initial devices; have \(recorder.all)") { recorder.all.count == 4 }
        #expect(
            recorder.all == [
                .device(Device(id: "mock:barcode-1", driver: "mock", kind: .barcode, name: "Mock barcode scanner barcode-1")),
                .device(Device(id: "mock:door", driver: "mock", kind: .nfc, name: "Door reader")),
                .device(Device(id: "mock:barcode-2", driver: "mock", kind: .barcode, name: "Mock barcode scanner barcode-2")),
                .device(Device(id: "mock:cam", driver: "mock", kind: .qr, name: "Mock QR camera cam")),
            ])
    }

    @Test("bad or duplicate initial device ids are refused")
    func badSpecs() {
        #expect { try MockDriver(devices: [MockDeviceSpec(kind: .nfc, id: "front door")]) } throws: {
            code(of: $0) == .invalidParams
        }
        #expect {
            try MockDriver(devices: [MockDeviceSpec(kind: .nfc, id: "a"), MockDeviceSpec(kind: .qr, id: "mock:a")])
        } throws: { code(of: $0) == .conflict }
    }

    @Test("mock.* needs the driver running")
    func notRunning() async throws {
        let driver = try MockDriver()
        await #expect { try await driver.attach(kind: .nfc, id: nil, name: nil) } throws: { code(of: $0) == .unavailable }
        await #expect { try await driver.detach(id: "mock:nfc-1") } throws: { code(of: $0) == .unavailable }
    }

    @Test("attach gives default ids mock:<kind>-<n>, reported before attach returns")
    func attachDefaultIDs() async throws {
        let driver = try MockDriver()
        let recorder = EventRecorder(driver)
        defer { Task { await recorder.stop() } }
        let first = try await driver.attach(kind: .barcode, id: nil, name: nil)
        #expect(first.id == "mock:barcode-1")
        #expect(first.driver == "mock")
        #expect(first.kind == .barcode)
        #expect(first.state == .ready)
        #expect(recorder.all == [.device(first)])
        #expect(try await driver.attach(kind: .barcode, id: nil, name: nil).id == "mock:barcode-2")
        #expect(try await driver.attach(kind: .nfc, id: nil, name: nil).id == "mock:nfc-1")
        let camera = try await driver.attach(kind: .qr, id: nil, name: "Bench camera")
        #expect(camera.id == "mock:qr-1")
        #expect(camera.name == "Bench camera")
        #expect(recorder.all.count == 4)
    }

    @Test("attach with an id, with or without the mock: prefix")
    func attachWithID() async throws {
        let driver = try MockDriver()
        let recorder = EventRecorder(driver)
        defer { Task { await recorder.stop() } }
        #expect(try await driver.attach(kind: .barcode, id: "till-1", name: nil).id == "mock:till-1")
        #expect(try await driver.attach(kind: .barcode, id: "mock:till-2", name: nil).id == "mock:till-2")
        // An explicit id that looks like a default one is skipped by the numbering.
        #expect(try await driver.attach(kind: .nfc, id: "nfc-1", name: nil).id == "mock:nfc-1")
        #expect(try await driver.attach(kind: .nfc, id: nil, name: nil).id == "mock:nfc-2")
        for bad in ["", "mock:", "two words", String(repeating: "x", count: 124)] {
            await #expect { try await driver.attach(kind: .nfc, id: bad, name: nil) } throws: { error in
                (error as? ScanBridgeError)?.code == .invalidParams && (error as? ScanBridgeError)?.field == "id"
            }
        }
        #expect(try await driver.attach(kind: .nfc, id: String(repeating: "x", count: 123), name: nil).id.count == 128)
    }

    @Test("attaching an attached id is a conflict")
    func attachConflict() async throws {
        let driver = try MockDriver(devices: [MockDeviceSpec(kind: .barcode, id: "till")])
        let recorder = EventRecorder(driver)
        defer { Task { await recorder.stop() } }
        await #expect { try await driver.attach(kind: .barcode, id: "till", name: nil) } throws: { code(of: $0) == .conflict }
        await #expect { try await driver.attach(kind: .barcode, id: "mock:till", name: nil) } throws: {
            code(of: $0) == .conflict
        }
        let attached = try await driver.attach(kind: .qr, id: nil, name: nil)
        await #expect { try await driver.attach(kind: .qr, id: attached.id, name: nil) } throws: { code(of: $0) == .conflict }
    }

    @Test("detach reports the device gone; detaching it again does nothing")
    func detach() async throws {
        let driver = try MockDriver()
        let recorder = EventRecorder(driver)
        defer { Task { await recorder.stop() } }
        let device = try await driver.attach(kind: .nfc, id: nil, name: nil)
        try await driver.detach(id: device.id)
        #expect(recorder.all == [.device(device), .gone(device.id)])
        try await driver.detach(id: device.id)
        #expect(recorder.all.count == 2)
        await #expect { try await driver.detach(id: "mock:nobody") } throws: { code(of: $0) == .notFound }
        // The protocol takes the full id.
        await #expect { try await driver.detach(id: "nfc-1") } throws: { code(of: $0) == .notFound }
    }

    @Test("re-attaching a gone id brings back the same device")
    func replug() async throws {
        let driver = try MockDriver()
        let recorder = EventRecorder(driver)
        defer { Task { await recorder.stop() } }
        let device = try await driver.attach(kind: .barcode, id: nil, name: nil)
        try await driver.detach(id: device.id)
        let back = try await driver.attach(kind: .barcode, id: device.id, name: nil)
        #expect(back == device)
        #expect(recorder.all == [.device(device), .gone(device.id), .device(device)])
        // Without the prefix too, and with a new name.
        try await driver.detach(id: device.id)
        let renamed = try await driver.attach(kind: .barcode, id: "barcode-1", name: "Till")
        #expect(renamed.id == device.id)
        #expect(renamed.name == "Till")
        // A gone device keeps its number.
        try await driver.detach(id: device.id)
        #expect(try await driver.attach(kind: .barcode, id: nil, name: nil).id == "mock:barcode-2")
        // A replug must be of the same kind.
        await #expect { try await driver.attach(kind: .nfc, id: device.id, name: nil) } throws: {
            code(of: $0) == .conflict
        }
    }

    @Test("a script plays its reads on its device")
    func scriptPlayback() async throws {
        let script = try MockScript(
            parsing: """
                0.01 5901234123457
                0.01 symbology=qr ORDER:ord_1001
                """)
        let cardScript = try MockScript(parsing: "0.01 uid=04A1B2C3D4E5F6")
        let driver = try MockDriver(devices: [
            MockDeviceSpec(kind: .barcode, id: "till", script: script),
            MockDeviceSpec(kind: .nfc),
            MockDeviceSpec(kind: .nfc, id: "door", script: cardScript),
        ])
        let recorder = EventRecorder(driver)
        defer { Task { await recorder.stop() } }
        try await waitUntil("the script's three reads; have \(recorder.reads)") { recorder.reads.count == 3 }
        let reads = recorder.reads
        let till = reads.filter { if case .read(device: "mock:till", _, _, _, _) = $0 { true } else { false } }
        #expect(
            till == [
                .read(device: "mock:till", kind: .barcode, text: "5901234123457", uid: nil, symbology: nil),
                .read(device: "mock:till", kind: .barcode, text: "ORDER:ord_1001", uid: nil, symbology: "qr"),
            ])
        #expect(
            reads.contains(
                .read(
                    device: "mock:door", kind: .nfc, text: nil, uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6], symbology: nil)))
        // Devices come first, reads after.
        #expect(recorder.all.prefix(3).allSatisfy { if case .device = $0 { true } else { false } })
    }

    @Test("a looping script starts again")
    func scriptLoops() async throws {
        let script = try MockScript(parsing: "0.005 a\n0.005 b")
        let driver = try MockDriver(devices: [MockDeviceSpec(kind: .barcode, script: script, loop: true)])
        let recorder = EventRecorder(driver)
        defer { Task { await recorder.stop() } }  // also when the wait fails: the script loops for ever
        try await waitUntil("six reads of the looping script; have \(recorder.reads)") { recorder.reads.count >= 6 }
        await recorder.stop()
        let texts = recorder.reads.compactMap { record -> String? in
            if case .read(_, _, let text, _, _) = record { text } else { nil }
        }
        #expect(Array(texts.prefix(6)) == ["a", "b", "a", "b", "a", "b"])
    }

    @Test("a looping script that never waits is refused: it would flood the pipeline")
    func loopWithoutDelayRefused() throws {
        let script = try MockScript(parsing: "0 a\n0 b")
        #expect(throws: ScanBridgeError.self) { try MockDeviceSpec(kind: .barcode, script: script, loop: true) }
        _ = try MockDeviceSpec(kind: .barcode, script: script, loop: false)
    }

    @Test("once the stream ends, the driver is no longer running")
    func stopped() async throws {
        let driver = try MockDriver()
        let recorder = EventRecorder(driver)
        _ = try await driver.attach(kind: .barcode, id: nil, name: nil)
        await recorder.stop()
        await #expect { try await driver.attach(kind: .barcode, id: nil, name: nil) } throws: {
            code(of: $0) == .unavailable
        }
    }

    @Test("a restarted driver reports its devices again, gone ones as gone")
    func restart() async throws {
        let driver = try MockDriver(devices: [MockDeviceSpec(kind: .barcode)])
        let first = EventRecorder(driver)
        try await waitUntil("the first recorder's device; have \(first.all)") { first.all.count == 1 }
        let extra = try await driver.attach(kind: .nfc, id: nil, name: nil)
        try await driver.detach(id: "mock:barcode-1")
        await first.stop()
        let second = EventRecorder(driver)
        defer { Task { await second.stop() } }
        try await waitUntil("the second recorder's two devices; have \(second.all)") { second.all.count == 2 }
        var gone = Device(id: "mock:barcode-1", driver: "mock", kind: .barcode, name: "Mock barcode scanner barcode-1")
        gone.state = .gone
        #expect(second.all == [.device(gone), .device(extra)])
        #expect(try await driver.attach(kind: .barcode, id: "mock:barcode-1", name: nil).state == .ready)
    }
}
