import DriverKit
import Testing

@testable import EvdevDriver

/// How discovered keyboard-wedge scanners are read: the discovery's settings reach every
/// node's spec, `grab` among them.
@Suite("Evdev discovery settings")
struct EvdevDiscoverySettingsTests {
    @Test func grabOffReachesTheSpecOfADiscoveredNode() throws {
        let settings = try EvdevDiscoverySettings(deviceSettings: ["layout": "us", "grab": "off"])
        let spec = try settings.spec(path: "/dev/input/event5")
        #expect(spec.grab == false && spec.path == "/dev/input/event5")
    }

    @Test func discoveredNodesAreGrabbedByDefault() throws {
        #expect(try EvdevDiscoverySettings(deviceSettings: ["layout": "us"]).spec(path: "/dev/input/event5").grab)
        #expect(try EvdevDeviceSpec(path: "/dev/input/event6", settings: ["grab": "on"]).grab)
    }

    @Test func aBadGrabWordIsRefusedWhenTheSettingsAreMade() {
        #expect(throws: KeyboardError.self) { try EvdevDiscoverySettings(deviceSettings: ["grab": "maybe"]) }
    }
}
