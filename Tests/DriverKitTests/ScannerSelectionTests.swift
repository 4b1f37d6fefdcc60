import Testing

@testable import DriverKit

/// Which discovered devices are read: makers and names, the config's claims and releases,
/// and the operator's choices over them.
struct ScannerSelectionTests {
    static let keyboard = DiscoveredNode(
        subsystem: "input", devnode: "/dev/input/event3", sysname: "event3",
        vendorId: 0x0627, productId: 0x0001, serial: "KBD1", name: "QEMU USB Keyboard", isKeyboard: true)
    static let honeywell = DiscoveredNode(
        subsystem: "input", devnode: "/dev/input/event4", sysname: "event4",
        vendorId: 0x0C2E, productId: 0x0B81, serial: "S1", name: "Honeywell 1400g", isKeyboard: true)
    static func verdict(_ selection: ScannerSelection, _ node: DiscoveredNode) -> String {
        let verdict = selection.verdict(node, id: node.deviceID(driver: "evdev"))
        return (verdict.read ? "read: " : "left: ") + verdict.reason
    }

    @Test func makersAndNamesAreReadAPlainKeyboardIsNot() {
        let none = ScannerSelection()
        #expect(Self.verdict(none, Self.keyboard) == "left: not a scanner")
        #expect(Self.verdict(none, Self.honeywell) == "read: made by Honeywell (Metrologic)")
        var named = Self.keyboard
        named.name = "Generic Barcode Reader"
        #expect(Self.verdict(none, named) == "read: named Generic Barcode Reader")
    }

    @Test func theOperatorsChoiceIsOverTheConfigsAndAnIdOverItsProduct() {
        var selection = ScannerSelection(claimed: ["0627:0001"], released: ["EVDEV:0C2E:0B81:S1"])
        #expect(Self.verdict(selection, Self.keyboard) == "read: claimed in the config")
        #expect(Self.verdict(selection, Self.honeywell) == "left: released in the config")
        selection.operatorChoices["0627:0001"] = .release
        selection.operatorChoices["evdev:0c2e:0b81:s1"] = .claim
        #expect(Self.verdict(selection, Self.keyboard) == "left: released by the operator")
        #expect(Self.verdict(selection, Self.honeywell) == "read: claimed by the operator")
        selection.operatorChoices["evdev:0627:0001:kbd1"] = .claim
        #expect(Self.verdict(selection, Self.keyboard) == "read: claimed by the operator", "the device's own id first")
        #expect(selection.overrides.claimed == ["evdev:0627:0001:kbd1", "evdev:0c2e:0b81:s1"])
        #expect(selection.overrides.released == ["0627:0001"])
    }

    @Test func aKeyBothClaimedAndReleasedInTheConfigIsReleased() {
        let selection = ScannerSelection(claimed: ["0627:0001"], released: ["0627:0001"])
        #expect(Self.verdict(selection, Self.keyboard) == "left: released in the config")
    }

    @Test func keysAreProductsOrDiscoveredDeviceIds() {
        for good in ["0627:0001", "0C2E:0B81", "evdev:0627:0001:SCAN0001", "hidpos:0c2e:0b81@1-2.3#01", "serial:ttyACM0"] {
            #expect((try? ScannerKey.parse(good).get()) == good.lowercased(), "\(good)")
        }
        for bad in ["", "nope", "627:0001", "0627:00011", "mock:till-1", "evdev:", "evdev:a b", "pcsc:Reader_00", "xyzw:0001"] {
            #expect((try? ScannerKey.parse(bad).get()) == nil, "\(bad)")
        }
    }
}
