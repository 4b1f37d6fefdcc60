import DriverKit
import Glibc

/// A serial (USB CDC-ACM) scanner to read, as `--device serial:PATH[,KEY=VALUE…]` names it.
///
/// Settings: `suffix` (`any` by default: CR, LF or CR LF; or `cr`, `lf`, `crlf`, `none`),
/// `idle` (milliseconds without a byte that end a read with no suffix yet, default 100),
/// `prefix` (text stripped from the start of each read), `baud` (default 9600; CDC-ACM
/// scanners ignore it, RS-232 adapters need it).
package struct SerialDeviceSpec: Sendable, Equatable {
    package var path: String
    var framing: ByteFramer.Settings
    var baud: speed_t

    package static let settingNames = ByteFramer.Settings.names + ["baud"]
    static let speeds: [Int: speed_t] = [
        1200: speed_t(B1200), 2400: speed_t(B2400), 4800: speed_t(B4800), 9600: speed_t(B9600),
        19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600), 115200: speed_t(B115200),
    ]

    package init(path: String, settings: [String: String] = [:]) throws(SerialError) {
        self.path = path
        let given: DeviceSettings
        do throws(DeviceSettingError) {
            given = try DeviceSettings(settings, known: Self.settingNames, device: "a serial device")
            framing = try ByteFramer.Settings(given)
        } catch {
            throw .badSetting(error.description)
        }
        let baud = given["baud"] ?? "9600"
        guard let rate = Int(baud), let speed = Self.speeds[rate] else {
            throw .badSetting("baud takes \(Self.speeds.keys.sorted().map(String.init).joined(separator: ", ")), not '\(baud)'")
        }
        self.baud = speed
    }
}

/// What can go wrong with a serial device's settings, in words an operator can act on.
package enum SerialError: Error, Equatable, CustomStringConvertible {
    case badSetting(String)

    package var description: String {
        switch self {
        case .badSetting(let sentence): sentence
        }
    }
}
