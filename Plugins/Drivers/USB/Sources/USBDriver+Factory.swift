package import DriverKit
package import ScanBridgeCore

extension USBDriver {
    /// The libusb driver, for the daemon's list of drivers: `--device usb:VID:PID[:SERIAL],…`
    /// (and the config's `scanners.claim` entries that name one), each interface claimed once,
    /// and the scanners discovery finds in a vendor mode.
    package static let factory = DriverFactory<ScannerChoices>(
        name: driverName, discovers: true, settings: Never.self,
        parse: { path, settings in try USBDeviceSpec(path: path, settings: settings) },
        check: { specs in try USBDeviceSpec.checkOneInterfaceEach(specs) }
    ) { setup in
        USBDriver(devices: setup.devices, discovery: setup.discovery?.choices, logger: setup.logger)
    }
}
