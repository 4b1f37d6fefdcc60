package import DriverKit
package import ScanBridgeCore

extension HIDPOSDriver {
    /// The HID POS driver, for the daemon's list of drivers: `--device hidpos:PATH` nodes (it
    /// takes no settings, so a spec is the path), and the scanners discovery finds.
    package static let factory = DriverFactory<ScannerChoices>(
        name: "hidpos", discovers: true, settings: Never.self,
        parse: { path, settings in
            try HIDPOSDriver.checkSettings(settings)
            return path
        }
    ) { setup in
        HIDPOSDriver(paths: setup.devices, discovery: setup.discovery?.choices, logger: setup.logger)
    }
}
