import Foundation
import ScanBridgeModel

/// One lab case in a few lines, for the drivers' tests: a daemon in the shared guest, steps
/// on emulated hardware, and the scan events the daemon must publish.
///
///     let node = "/dev/input/by-id/usb-QEMU_QEMU_USB_Keyboard_SCAN0001-event-kbd"
///     let id = "evdev:dev_input_by-id_usb-QEMU_QEMU_USB_Keyboard_SCAN0001-event-kbd"
///     try await LabCase("a typed EAN-13 is one barcode event",
///         daemon: ["--drivers", "evdev", "--device", "evdev:\(node),max_gap=800,idle=3000"],
///         steps: [.plug(.usbKeyboard(serial: "SCAN0001")), .expectDevice(id, state: "ready"), .type("4006381333931\n")],
///         expect: [.scan("4006381333931", device: id, symbology: "ean-13")]
///     ).run()
///
/// Each step that fails names itself (`step 2 of 3: type "4006381333931\n"`). Devices the
/// case plugged and left plugged are unplugged and its daemon is stopped afterwards, so
/// the next case in the same guest starts from the same state.
struct LabCase: Sendable {
    let name: String
    let daemon: [String]
    let steps: [LabStep]
    let expect: [ExpectedScan]

    /// - Parameters:
    ///   - daemon: `scanbridged` options; the socket and database are the case's own.
    ///   - expect: exactly the scans the daemon must publish, in order.
    init(_ name: String, daemon: [String] = ["--drivers", "mock"], steps: [LabStep], expect: [ExpectedScan] = []) {
        self.name = name
        self.daemon = daemon
        self.steps = steps
        self.expect = expect
    }

    /// Runs the case in `guest` (by default the suite's shared guest) and returns what it saw.
    @discardableResult
    func run(in guest: Guest? = nil) async throws -> LabOutcome {
        let guest = if let guest { guest } else { try await Lab.guest() }
        let daemon = try await guest.startDaemon(daemon)
        var plugged: [String] = []
        do {
            for (index, step) in steps.enumerated() {
                do {
                    try await step.perform(in: guest, daemon: daemon, plugged: &plugged)
                } catch let failure as LabFailure {
                    throw LabFailure(
                        step: "\(name), step \(index + 1) of \(steps.count): \(step) → \(failure.step)",
                        reason: failure.reason, consoleLog: failure.consoleLog)
                }
            }
            let scans = try await expect.isEmpty ? daemon.scans() : daemon.waitForScans(expect.count)
            try check(scans, daemon: daemon)
            let outcome = LabOutcome(scans: scans, devices: try await daemon.devices(), daemon: daemon)
            try await cleanUp(guest, daemon: daemon, plugged: plugged)
            return outcome
        } catch {
            try? await cleanUp(guest, daemon: daemon, plugged: plugged)
            throw error
        }
    }

    private func check(_ scans: [JSONValue], daemon: GuestDaemon) throws {
        let seen = scans.map {
            "\($0["device"]?.stringValue ?? "?") \($0["symbology"]?.stringValue ?? "?") \(($0["text"] ?? $0["uid"])?.stringValue ?? "?")"
        }
        guard scans.count == expect.count, zip(expect, scans).allSatisfy({ $0.matches($1) }) else {
            throw LabFailure(
                step: "\(name): expected scans",
                reason: "expected \(expect), the daemon published \(seen); its log: share/\(daemon.name).log")
        }
    }

    private func cleanUp(_ guest: Guest, daemon: GuestDaemon, plugged: [String]) async throws {
        // The daemon and its helpers first, so none of them sees the unplug of a device it still follows.
        try await daemon.stop()
        for id in plugged.reversed() { try await guest.unplug(id) }
    }
}

/// What a finished case saw, for assertions beyond `expect`.
struct LabOutcome: Sendable {
    let scans: [JSONValue]
    let devices: [JSONValue]
    let daemon: GuestDaemon
}

/// One step of a `LabCase`.
enum LabStep: Sendable, CustomStringConvertible {
    /// Hot-plug over QMP; waits for the device's udev by-id node when it has one.
    case plug(LabDevice)
    case unplug(String)
    /// Type on the keyboard plugged last (paced, see `Guest.type`).
    case type(String)
    /// `scan.inject` through the socket inside the guest (mock devices).
    case inject(device: String, text: String)
    /// pcscd in the guest, with the host's reader drivers (libccid), stopped with the case's daemon.
    case pcscd
    /// `devices.list` shows the device in this state (`nil`: not listed).
    case expectDevice(String, state: String?)
    /// A shell script run in the guest; it fails the step with a non-zero status.
    case shell(String, script: String)
    case pause(Duration)

    var description: String {
        switch self {
        case .plug(let device): "plug \(device.id)"
        case .unplug(let id): "unplug \(id)"
        case .type(let text): "type \(text.debugDescription)"
        case .inject(let device, let text): "inject \(text) on \(device)"
        case .pcscd: "start pcscd"
        case .expectDevice(let id, let state): "expect device \(id) \(state ?? "not listed")"
        case .shell(let what, _): what
        case .pause(let duration): "pause \(duration)"
        }
    }

    func perform(in guest: Guest, daemon: GuestDaemon, plugged: inout [String]) async throws {
        switch self {
        case .plug(let device):
            try await guest.plug(device)
            plugged.append(device.id)
        case .unplug(let id):
            try await guest.unplug(id)
            plugged.removeAll { $0 == id }
        case .type(let text):
            try await guest.type(text)
        case .inject(let device, let text):
            let parameters = try JSONSerialization.data(withJSONObject: ["device": device, "text": text])
            _ = try await daemon.call("scan.inject", String(decoding: parameters, as: UTF8.self))
        case .pcscd:
            try await daemon.startPCSCD()
        case .expectDevice(let id, let state):
            try await daemon.waitForDevice(id, state: state)
        case .shell(let what, let script):
            try await guest.run(what, script)
        case .pause(let duration):
            try await Task.sleep(for: duration)  // a scripted pause: the case asks for the time to pass
        }
    }
}

/// A scan event a case expects; `nil` fields are not checked.
struct ExpectedScan: Sendable, CustomStringConvertible {
    var text: String
    var device: String?
    var symbology: String?

    static func scan(_ text: String, device: String? = nil, symbology: String? = nil) -> ExpectedScan {
        ExpectedScan(text: text, device: device, symbology: symbology)
    }

    func matches(_ event: JSONValue) -> Bool {
        (event["text"] ?? event["uid"])?.stringValue == text
            && (device == nil || event["device"]?.stringValue == device)
            && (symbology == nil || event["symbology"]?.stringValue == symbology)
    }

    var description: String { "\(device ?? "any device") \(symbology ?? "any symbology") \(text)" }
}
