import DriverKit
import Testing

@testable import SerialDriver

struct SerialDeviceSpecTests {
    @Test func settingsAreCheckedWithClearErrors() throws {
        #expect(throws: SerialError.self) { try SerialDeviceSpec(path: "/dev/ttyACM0", settings: ["suffix": "semicolon"]) }
        #expect(throws: SerialError.self) { try SerialDeviceSpec(path: "/dev/ttyACM0", settings: ["baud": "300"]) }
        #expect(throws: SerialError.self) { try SerialDeviceSpec(path: "/dev/ttyACM0", settings: ["parity": "even"]) }
        let spec = try SerialDeviceSpec(path: "/dev/ttyACM0", settings: ["suffix": "none", "idle": "40", "prefix": "]E0"])
        #expect(
            spec.framing.suffix == .none && spec.framing.idle == .milliseconds(40) && spec.framing.prefix == Array("]E0".utf8))
    }
}
