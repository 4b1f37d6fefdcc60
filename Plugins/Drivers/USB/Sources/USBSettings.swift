import ScanBridgeModel

/// The config file's `usb:` section: the port reset of a USB device that keeps failing.
/// The daemon's `AutoReset` acts on it, for any driver's USB device.
package struct USBSettings: Decodable, Sendable {
    /// Reset a USB device once it has gone into `error` this many times within ten minutes;
    /// nil: never by itself. At most 100, so a device that fails is reset before long.
    package var autoResetAfterErrors: Int?

    enum CodingKeys: String, CodingKey {
        case autoResetAfterErrors = "auto_reset_after_errors"
    }

    package init() {}

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        autoResetAfterErrors = try c.number(.autoResetAfterErrors, in: 1...100)
    }
}
