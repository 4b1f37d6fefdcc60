package import ScanBridgeCore

extension MockDriver {
    /// The mock driver, for the daemon's list of drivers. No `--device` names its devices:
    /// they are the `--mock` options and the config's `mock:` list. It runs by default only
    /// when they ask for it, since a mock device scans whatever an admin injects; the daemon
    /// hands its control (`MockDeviceControl`) to the protocol's `mock.*` methods.
    package static func factory<Choices: Sendable>() -> DriverFactory<Choices> {
        DriverFactory(name: "mock", runsByDefault: false, devices: MockDeviceSpec.self, settings: Never.self) { setup in
            try MockDriver(devices: setup.devices, logger: setup.logger)
        }
    }
}
