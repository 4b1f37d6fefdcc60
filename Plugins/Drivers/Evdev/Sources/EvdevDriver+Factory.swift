package import DriverKit
package import ScanBridgeCore

extension EvdevDriver {
    /// The keyboard-wedge driver, for the daemon's list of drivers: `--device evdev:PATH,…`
    /// nodes, and the keyboards discovery finds, read with the discovery's device settings.
    package static let factory = DriverFactory<ScannerChoices>(
        name: "evdev", discovers: true, settings: Never.self,
        parse: { path, settings in try EvdevDeviceSpec(path: path, settings: settings) }
    ) { setup in
        let discovery = try setup.discovery.map {
            try EvdevDiscoverySettings(deviceSettings: $0.deviceSettings, choices: $0.choices)
        }
        return EvdevDriver(devices: setup.devices, discovery: discovery, logger: setup.logger)
    }
}
