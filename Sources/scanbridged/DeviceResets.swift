import DriverKit
import Foundation
import Logging
import ScanBridgeCore
import ScanBridgeModel
import Synchronization
import USBDriver

/// `devices.reset`: a USB port reset of the device behind a listed device (a scanner, a
/// camera, a card reader), found through the node its driver reads, or for a card reader
/// pcscd reads, by its USB serial among the smart-card readers on USB. Its driver then reads
/// it again under the same id: a node that stays is read on; one that goes and comes back is
/// found again by discovery; pcscd's reader comes back to the PC/SC driver as after a pcscd
/// restart. Logged and counted (`scanbridge_device_resets_total`).
///
/// A reset blocks for a while, so each runs on a thread of its own, never the pools others
/// share; one device is reset once at a time, at most `maxAtOnce` devices at once, and a
/// device once every `cooldown`, so an operator's batch of resets (or a script in a loop)
/// cannot pile threads up or keep a device from ever coming back.
final class DeviceResets: DeviceResetting {
    static let maxAtOnce = 4
    static let cooldown: Duration = .seconds(10)
    let registry: DeviceRegistry
    let metrics: ScanMetrics
    let logger: Logger
    private struct State {
        var underway: Set<String> = []
        /// When each device's last reset ended, for the cooldown; a device not reset within
        /// it is forgotten at the next reset, so the map holds the recent ones only.
        var ended: [String: ContinuousClock.Instant] = [:]
    }
    private let state = Mutex(State())

    init(registry: DeviceRegistry, metrics: ScanMetrics, logger: Logger) {
        self.registry = registry
        self.metrics = metrics
        self.logger = logger
    }

    func reset(_ id: String) async throws -> DeviceResetOutcome {
        guard let device = registry.devices.first(where: { $0.id == id }) else {
            throw ScanBridgeError.notFound("no device \(id); `scanbridge devices` lists them")
        }
        let now = ContinuousClock.now
        let refusal: ScanBridgeError? = state.withLock { state in
            if state.underway.contains(id) { return .conflict("\(id) is being reset already") }
            state.ended = state.ended.filter { now - $0.value < Self.cooldown }
            if let ended = state.ended[id] {
                let wait = Int(((Self.cooldown - (now - ended)) / .seconds(1)).rounded(.up))
                return .overloaded("\(id) was reset a moment ago; a device may be reset once every 10 s: try again in \(wait) s")
            }
            if state.underway.count >= Self.maxAtOnce {
                return .overloaded("\(state.underway.count) devices are being reset; try again when they are done")
            }
            state.underway.insert(id)
            return nil
        }
        if let refusal { throw refusal }
        defer { _ = state.withLock { $0.underway.remove(id) } }
        // libudev, sysfs and the reset itself block, the reset for a good while.
        let result = await withCheckedContinuation {
            (done: CheckedContinuation<Result<DeviceResetOutcome, ScanBridgeError>, Never>) in
            Thread.detachNewThread { done.resume(returning: Self.resetBlocking(device)) }
        }
        var logger = logger
        logger[metadataKey: "device.id"] = "\(id)"
        switch result {
        case .success(let outcome):
            cool(id)
            metrics.deviceReset(driver: device.driver, outcome: outcome.reenumerated ? "reenumerated" : "reset")
            logger.notice(
                "USB device \(outcome.usb) at \(outcome.path) reset\(outcome.reenumerated ? ", enumerated anew" : "")")
            return outcome
        case .failure(let error):
            // The kernel refused the reset: a device not on USB starts no cooldown.
            if error.code == .unavailable {
                cool(id)
                metrics.deviceReset(driver: device.driver, outcome: "failed")
            }
            logger.warning("USB reset refused or failed: \(error.message)")
            throw error
        }
    }

    /// Starts the device's cooldown, from the end of its reset.
    private func cool(_ id: String) {
        state.withLock { $0.ended[id] = .now }
    }

    private static func resetBlocking(_ device: Device) -> Result<DeviceResetOutcome, ScanBridgeError> {
        let usb: USBDeviceFinder.Found
        switch usbDevice(of: device) {
        case .success(let found): usb = found
        case .failure(let error): return .failure(error)
        }
        switch USBPortReset.reset(devnode: usb.devnode) {
        case .success(let outcome):
            return .success(
                DeviceResetOutcome(id: device.id, usb: usb.product, path: usb.devnode, reenumerated: outcome == .reenumerated))
        case .failure(let failure):
            return .failure(.unavailable("\(device.id): \(failure)"))
        }
    }

    /// The USB device behind `device`: above the node it is read from, else, for a card
    /// reader, the one smart-card reader on USB with its serial (and ids, when known).
    static func usbDevice(of device: Device) -> Result<USBDeviceFinder.Found, ScanBridgeError> {
        if let path = device.path, let found = USBDeviceFinder.device(above: path) { return .success(found) }
        guard device.kind == .nfc, device.driver == "pcsc" else {
            return .failure(
                .invalidParams(
                    "\(device.id) is not on USB (\(device.path ?? "no device node")): there is nothing to reset", field: "id"))
        }
        let readers = USBDeviceFinder.devices(
            serial: device.serial, vendorId: device.vendorId.flatMap { UInt16($0, radix: 16) },
            productId: device.productId.flatMap { UInt16($0, radix: 16) }, interfaceClass: 0x0B)
        guard readers.count == 1 else {
            let found = readers.isEmpty ? "none" : readers.map { "\($0.product) at \($0.port)" }.joined(separator: ", ")
            return .failure(
                .invalidParams(
                    "\(device.id): cannot tell which USB smart-card reader it is (\(found) match its serial and ids); unplug and plug it in instead",
                    field: "id"))
        }
        return .success(readers[0])
    }
}
