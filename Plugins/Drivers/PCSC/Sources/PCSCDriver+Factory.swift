package import ScanBridgeCore

extension PCSCDriver {
    /// The PC/SC driver, for the daemon's list of drivers: pcscd finds its readers, so no
    /// `--device` names one; its settings are the config file's `pcsc:` section.
    package static func factory<Choices: Sendable>() -> DriverFactory<Choices> {
        DriverFactory(name: "pcsc", devices: Never.self, section: "pcsc", settings: PCSCSettings.self) { setup in
            PCSCDriver(settings: setup.settings ?? PCSCSettings(), logger: setup.logger)
        }
    }
}
