package import Logging
package import ScanBridgeCore
package import ScanBridgeModel
import Synchronization

/// Mock devices: attached and detached at will (`mock.attach` / `mock.detach` behave as a
/// plug and an unplug), read through `scan.inject`, or playing a script of timed scans.
/// They stand in for hardware in tests and demos, and go through the same pipeline.
package final class MockDriver: DeviceDriver, MockDeviceControl {
    package let name = "mock"

    private struct State {
        var order: [String] = []
        var devices: [String: Device] = [:]
        var continuation: AsyncStream<DriverEvent>.Continuation?
        /// Which `events()` stream is current, so an old stream's end cannot unset a newer one.
        var generation = 0
    }

    private let state = Mutex(State())
    private let specs: [MockDeviceSpec]
    private let logger: Logger

    package init(devices specs: [MockDeviceSpec] = [], logger: Logger = Logger(label: "scanbridge.driver.mock"))
        throws(ScanBridgeError)
    {
        self.specs = specs
        self.logger = logger
        try state.withLock { state throws(ScanBridgeError) in
            for spec in specs {
                let device = try Self.makeDevice(kind: spec.kind, id: spec.id, name: spec.name, in: state)
                state.order.append(device.id)
                state.devices[device.id] = device
            }
        }
    }

    package func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        // Changes are yielded under the lock, so the stream carries them in the order they happened.
        let (devices, generation) = state.withLock { state in
            state.continuation = continuation
            state.generation += 1
            let devices = state.order.compactMap { state.devices[$0] }
            for device in devices { continuation.yield(.device(device)) }
            return (devices, state.generation)
        }
        let players = zip(specs, devices).compactMap { spec, device -> Task<Void, Never>? in
            guard let script = spec.script else { return nil }
            return Task { await self.play(script, on: device.id, loop: spec.loop, into: continuation) }
        }
        continuation.onTermination = { [weak self] _ in
            for player in players { player.cancel() }
            self?.state.withLock { state in
                if state.generation == generation { state.continuation = nil }
            }
        }
        return stream
    }

    package func attach(kind: DeviceKind, id: String?, name: String?) async throws(ScanBridgeError) -> Device {
        let (device, continuation) = try state.withLock { state throws(ScanBridgeError) in
            guard let continuation = state.continuation else { throw Self.notRunning }
            var device: Device
            if let id, let existing = state.devices[Self.deviceID(id)] {
                guard existing.state == .gone else {
                    throw ScanBridgeError.conflict("device \(existing.id) is already attached; detach it first to replug it")
                }
                guard existing.kind == kind else {
                    throw ScanBridgeError.conflict(
                        "device \(existing.id) is a \(existing.kind.rawValue) device, not \(kind.rawValue)")
                }
                device = existing
                device.state = .ready
                if let name { device.name = name }
            } else {
                device = try Self.makeDevice(kind: kind, id: id, name: name, in: state)
                state.order.append(device.id)
            }
            state.devices[device.id] = device
            continuation.yield(.device(device))
            return (device, continuation)
        }
        await applied(through: continuation)
        logger.info("mock device attached", metadata: ["device.id": "\(device.id)"])
        return device
    }

    package func detach(id: String) async throws(ScanBridgeError) {
        let continuation: AsyncStream<DriverEvent>.Continuation? = try state.withLock { state throws(ScanBridgeError) in
            guard let continuation = state.continuation else { throw Self.notRunning }
            guard var device = state.devices[id] else {
                throw ScanBridgeError.notFound("no mock device '\(id)'; use the full id, e.g. mock:barcode-1")
            }
            if device.state == .gone { return nil }
            device.state = .gone
            state.devices[id] = device
            continuation.yield(.gone(deviceID: id))
            return continuation
        }
        guard let continuation else { return }
        await applied(through: continuation)
        logger.info("mock device detached", metadata: ["device.id": "\(id)"])
    }

    /// Waits until the host has applied everything yielded so far.
    private func applied(through continuation: AsyncStream<DriverEvent>.Continuation) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            if case .terminated = continuation.yield(.barrier({ done.resume() })) { done.resume() }
        }
    }

    /// A script's reads wait for room in their device's lane: a script at full speed goes as
    /// fast as the daemon records, and loses nothing.
    package var readsWait: Bool { true }

    private func play(_ script: MockScript, on id: String, loop: Bool, into continuation: AsyncStream<DriverEvent>.Continuation)
        async
    {
        repeat {
            for step in script.steps {
                do { try await Task.sleep(for: step.delay) } catch { return }
                // Checked and yielded under the lock: no read slips in after the device's unplug.
                state.withLock { state in
                    guard let device = state.devices[id], device.state == .ready else { return }
                    continuation.yield(
                        .read(
                            RawRead(
                                device: device.id, driver: name, kind: device.kind, text: step.text, symbology: step.symbology,
                                uid: step.uid)))
                }
            }
        } while loop && !Task.isCancelled
    }

    private static let notRunning = ScanBridgeError.unavailable("the mock driver is not running")

    private static func deviceID(_ id: String) -> String {
        id.hasPrefix("mock:") ? id : "mock:" + id
    }

    private static func makeDevice(kind: DeviceKind, id: String?, name: String?, in state: State) throws(ScanBridgeError)
        -> Device
    {
        let deviceID: String
        if let id {
            deviceID = Self.deviceID(id)
            guard deviceID.count > 5, deviceID.count <= 128, !deviceID.contains(where: \.isWhitespace) else {
                throw ScanBridgeError.invalidParams("a mock device id has 1 to 123 characters and no spaces", field: "id")
            }
            guard state.devices[deviceID] == nil else {
                throw ScanBridgeError.conflict("device \(deviceID) already exists")
            }
        } else {
            let number = (1...).first { state.devices["mock:\(kind.rawValue)-\($0)"] == nil }!
            deviceID = "mock:\(kind.rawValue)-\(number)"
        }
        let defaultName =
            switch kind {
            case .nfc: "Mock NFC reader"
            case .barcode: "Mock barcode scanner"
            case .qr: "Mock QR camera"
            }
        return Device(id: deviceID, driver: "mock", kind: kind, name: name ?? "\(defaultName) \(deviceID.dropFirst(5))")
    }
}
