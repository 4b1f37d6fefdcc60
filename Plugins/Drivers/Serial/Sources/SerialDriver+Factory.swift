package import DriverKit
package import ScanBridgeCore

extension SerialDriver {
    /// The serial driver, for the daemon's list of drivers: `--device serial:PATH,…` ttys, and
    /// the serial scanners discovery finds.
    package static let factory = DriverFactory<ScannerChoices>(
        name: "serial", discovers: true, settings: Never.self,
        parse: { path, settings in try SerialDeviceSpec(path: path, settings: settings) }
    ) { setup in
        SerialDriver(devices: setup.devices, discovery: setup.discovery?.choices, logger: setup.logger)
    }
}
