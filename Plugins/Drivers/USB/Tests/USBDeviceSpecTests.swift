import DriverKit
import Foundation
import Testing

@testable import USBDriver

struct USBDeviceSpecTests {
    @Test func aDeviceIsNamedByItsIdsAndOptionallyItsSerial() throws {
        let spec = try USBDeviceSpec(
            path: "0403:6001:A1B2", settings: ["interface": "0", "endpoint": "0x81", "packet_header": "2", "suffix": "cr"])
        #expect(spec.vendorId == 0x0403 && spec.productId == 0x6001 && spec.serial == "A1B2")
        #expect(spec.interface == 0 && spec.endpoint == 0x81 && spec.packetHeader == 2 && !spec.detach)
        #expect(spec.framing.suffix == .cr)
        let any = try USBDeviceSpec(path: "0C2E:0B81", settings: ["interface": "2", "detach": "on"])
        #expect(any.serial == nil && any.interface == 2 && any.detach && any.endpoint == nil)
    }

    @Test func badNamesAndSettingsAreSentencesAnOperatorCanActOn() {
        let cases: [(String, [String: String], String)] = [
            ("0403", ["interface": "0"], "a USB device is named VID:PID[:SERIAL] in hex (usb:0403:6001), not '0403'"),
            ("+403:6001", ["interface": "0"], "a USB device is named VID:PID[:SERIAL] in hex (usb:0403:6001), not '+403:6001'"),
            ("0403:6001:", ["interface": "0"], "the serial after VID:PID is empty in '0403:6001:'"),
            ("0403:6001", [:], "a USB device needs interface=N: the interface to read (lsusb -v lists them)"),
            ("0403:6001", ["interface": "256"], "interface takes an interface number from 0 to 255, not '256'"),
            (
                "0403:6001", ["interface": "0", "endpoint": "0x01"],
                "endpoint takes an IN endpoint address from 0x81 to 0x8f, not '0x01'"
            ),
            ("0403:6001", ["interface": "0", "detach": "maybe"], "detach takes on or off, not 'maybe'"),
            ("0403:6001", ["interface": "0", "packet_header": "65"], "packet_header takes bytes from 0 to 64, not '65'"),
            (
                "0403:6001", ["interface": "0", "baud": "9600"],
                "unknown setting 'baud' for a USB device (known: interface, endpoint, detach, packet_header, suffix, idle, prefix, layout, max_gap)"
            ),
        ]
        for (path, settings, sentence) in cases {
            #expect(throws: USBError.badSetting(sentence)) { try USBDeviceSpec(path: path, settings: settings) }
        }
    }

    @Test func aShortIdleIsABytesDevicesAndAKeyboardsSettingsAreCheckedWhenGiven() throws {
        #expect(
            try USBDeviceSpec(path: "0403:6001", settings: ["interface": "0", "idle": "30"]).framing.idle == .milliseconds(30))
        #expect(throws: USBError.self) {
            try USBDeviceSpec(path: "0627:0001", settings: ["interface": "0", "idle": "30", "max_gap": "50"])
        }
        #expect(throws: USBError.self) {
            try USBDeviceSpec(path: "0627:0001", settings: ["interface": "0", "layout": "klingon"])
        }
    }

    @Test func twoSpecsThatCouldNameOneDeviceAreRefused() throws {
        let first = try USBDeviceSpec(path: "0403:6001:A", settings: ["interface": "0"])
        let second = try USBDeviceSpec(path: "0403:6001:B", settings: ["interface": "1"])
        let any = try USBDeviceSpec(path: "0403:6001", settings: ["interface": "1"])
        try USBDeviceSpec.checkOneInterfaceEach([first, second])
        #expect(throws: USBError.self) { try USBDeviceSpec.checkOneInterfaceEach([first, any]) }
        #expect(throws: USBError.self) { try USBDeviceSpec.checkOneInterfaceEach([first, first]) }
    }

    @Test func aSpecMatchesItsUSBDeviceOnly() throws {
        let spec = try USBDeviceSpec(path: "0403:6001:A1B2", settings: ["interface": "0"])
        var node = DiscoveredNode(
            subsystem: "usb", devnode: "/dev/bus/usb/001/004", sysname: "1-2", vendorId: 0x0403, productId: 0x6001, serial: "A1B2"
        )
        #expect(spec.matches(node))
        node.serial = "OTHER"
        #expect(!spec.matches(node))
        node.serial = "A1B2"
        node.subsystem = "tty"
        #expect(!spec.matches(node))
    }

    /// The interfaces as a fake sysfs folder shows them, and the advice `devices.candidates` gives.
    @Test func candidatesSayWhatEachScannersInterfacesNeed() throws {
        let sysfs = FileManager.default.temporaryDirectory.appendingPathComponent("usb-sysfs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: sysfs) }
        func interface(_ name: String, number: String, type: String, driver: String?) throws {
            let folder = "\(sysfs)/\(name)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try "\(number)\n".write(toFile: "\(folder)/bInterfaceNumber", atomically: true, encoding: .utf8)
            try "\(type)\n".write(toFile: "\(folder)/bInterfaceClass", atomically: true, encoding: .utf8)
            if let driver {
                try FileManager.default.createSymbolicLink(
                    atPath: "\(folder)/driver", withDestinationPath: "../../drivers/\(driver)")
            }
        }
        try interface("1-2:1.0", number: "00", type: "03", driver: "usbhid")
        try interface("1-2:1.1", number: "01", type: "ff", driver: nil)
        try interface("1-3:1.0", number: "00", type: "02", driver: "cdc_acm")
        try interface("1-3:1.1", number: "01", type: "0a", driver: "cdc_acm")
        try interface("1-4:1.0", number: "00", type: "ff", driver: "usbfs")

        let vendorMode = USBInterface.of(port: "1-2", sysfs: sysfs)
        #expect(vendorMode.map(\.number) == [0, 1] && vendorMode[0].driver == "usbhid" && vendorMode[1].isVendorSpecific)
        #expect(
            USBInterface.advice(for: vendorMode, product: "0c2e:0b81")
                == "in a vendor mode (interface 1): read it with --device usb:0c2e:0b81,interface=1, or scan the maker's setup code for HID POS or USB COM mode"
        )
        #expect(
            USBInterface.advice(for: USBInterface.of(port: "1-3", sysfs: sysfs), product: "0c2e:0b81")
                == "bound to the kernel's cdc_acm: read through the evdev, hidpos or serial driver")
        #expect(
            USBInterface.advice(for: USBInterface.of(port: "1-4", sysfs: sysfs), product: "0c2e:0b81")
                == "another program has claimed it")
        #expect(USBInterface.of(port: "1-9", sysfs: sysfs).isEmpty)
    }
}
