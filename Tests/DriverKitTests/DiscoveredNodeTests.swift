import Testing

@testable import DriverKit

struct DiscoveredNodeTests {
    @Test func deviceIDsPreferTheSerialThenThePort() {
        var node = DiscoveredNode(
            subsystem: "input", devnode: "/dev/input/event5", sysname: "event5",
            vendorId: 0x0C2E, productId: 0x0B81, serial: "19012B4A17", portPath: "1-2.3", interface: "00")
        #expect(node.deviceID(driver: "evdev") == "evdev:0c2e:0b81:19012B4A17")
        node.serial = "  "
        #expect(node.deviceID(driver: "evdev") == "evdev:0c2e:0b81:__")
        node.serial = nil
        #expect(node.deviceID(driver: "evdev") == "evdev:0c2e:0b81@1-2.3")
        node.interface = "01"
        #expect(node.deviceID(driver: "hidpos") == "hidpos:0c2e:0b81@1-2.3#01")
        node.serial = "S/N 7"
        #expect(node.deviceID(driver: "hidpos") == "hidpos:0c2e:0b81:S_N_7#01")
        let bare = DiscoveredNode(subsystem: "tty", devnode: "/dev/ttyS0", sysname: "ttyS0")
        #expect(bare.deviceID(driver: "serial") == "serial:ttyS0")
    }

    @Test func aDeviceNotOnUSBIsNamedByWhereItSits() {
        var vivid = DiscoveredNode(subsystem: "video4linux", devnode: "/dev/video0", sysname: "video0")
        vivid.busPath = "platform-vivid.0"
        #expect(vivid.deviceID(driver: "v4l2") == "v4l2:platform-vivid.0")
        // On USB, the USB device names it, wherever it sits.
        vivid.vendorId = 0x046D
        vivid.productId = 0x0825
        vivid.serial = "1A2B3C4D"
        #expect(vivid.deviceID(driver: "v4l2") == "v4l2:046d:0825:1A2B3C4D")
    }

    @Test func keyboardsAreToldByTheirLetterKeys() {
        // A usb-kbd's key bitmap (QEMU), and a power button's.
        #expect(UdevDevice.hasLetterKeys("ff 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 fffffffffffe0000 ffffffffffffffff fffffffffffffffe"))
        #expect(!UdevDevice.hasLetterKeys("10000000000000 0"))
        #expect(!UdevDevice.hasLetterKeys(""))
        #expect(!UdevDevice.hasLetterKeys("zz"))
    }
}
