import Foundation
import ScanBridgeModel
import Testing

extension LabSuites.USBLane.USBControllerGuest {
    /// PC/SC readers on emulated USB: QEMU's `usb-ccid` reader hot-plugged over QMP, seen by
    /// the guest's kernel, by pcscd with libccid (the host's, as the guest's root is the
    /// host's), and by the daemon's PC/SC driver. The taps themselves are tested with vpcd
    /// (`PCSCEndToEndTests`): this reader is a contact one, with no NFC UID to give.
    @Suite(
        "PC/SC readers in the guest", .serialized, .pcscInGuestAvailable,
        .timeLimit(.minutes(15)))
    struct PCSCLabTests {
        /// QEMU's reader as pcscd names it: libccid's name for 08E6:4433, the USB interface's
        /// name, the USB serial number, the slot. The driver makes it an id.
        static let readerName = "Gemalto Gemplus USB SmartCard Reader 433-Swap [CCID Interface] (CCID0001) 00 00"
        static let reader = "pcsc:Gemalto_Gemplus_USB_SmartCard_Reader_433_Swap_CCID_Interface_CCID0001_00_00"

        /// `device_add usb-ccid` → pcscd (libudev hotplug) + libccid open it → the driver's
        /// PnP wake-up and re-list → `ready`; `device_del` → `gone`; plugged again (QEMU
        /// takes the next free port) → `ready` under the same id, the daemon never restarted.
        @Test func usbCCIDReaderComesAndGoes() async throws {
            let outcome = try await LabCase(
                "a usb-ccid reader comes and goes through pcscd and libccid",
                daemon: ["--drivers", "pcsc"],
                steps: [
                    .pcscd,
                    .plug(.usbCCID(id: "ccid1", serial: "CCID0001")),
                    .expectDevice(Self.reader, state: "ready"),
                    .unplug("ccid1"),
                    .expectDevice(Self.reader, state: "gone"),
                    .plug(.usbCCID(id: "ccid2", serial: "CCID0001")),
                    .expectDevice(Self.reader, state: "ready"),
                ]
            ).run()
            let device = try #require(outcome.devices.first { $0["id"]?.stringValue == Self.reader })
            #expect(device["driver"] == "pcsc")
            #expect(device["kind"] == "nfc")
            #expect(device["name"]?.stringValue == Self.readerName, "\(device)")
            #expect(device["serial"] == "CCID0001")
            // What a subscriber saw: added, gone, added again (the stop that follows may add a last `gone`).
            let states = outcome.daemon.deviceNotifications()
                .filter { $0["id"]?.stringValue == Self.reader }
                .compactMap { $0["state"]?.stringValue }
            #expect(Array(states.prefix(3)) == ["ready", "gone", "ready"], "\(states)")
            // Only the USB reader: the guest's pcscd reads no serial reader configuration.
            #expect(outcome.devices.count == 1, "\(outcome.devices)")
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// The guest runs the host's pcscd and libccid (its root is the host's `/`).
    static var pcscInGuestAvailable: Self {
        let needed = [
            ("/usr/sbin/pcscd", "pcscd"),
            ("/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Linux/libccid.so", "libccid"),
        ]
        let missing = needed.filter { !FileManager.default.fileExists(atPath: $0.0) }
        return .enabled(
            if: missing.isEmpty,
            Comment(
                rawValue: missing.map { "\($0.0) is missing: install the Debian package \($0.1) (scripts/deps.sh test does)" }
                    .joined(separator: "; ")))
    }
}
