import Logging
import MockDriver
import ScanBridgeCore

/// The one place that knows which drivers and handlers are built in.
enum BuiltinPlugins {
    static let driverNames = ["mock"]

    /// The drivers to run, and the mock driver's control when it runs.
    static func drivers(settings: DaemonSettings, logger: Logger) throws -> (drivers: [any DeviceDriver], mock: MockDriver?) {
        var drivers: [any DeviceDriver] = []
        var mock: MockDriver?
        if settings.drivers.contains("mock") {
            var mockLogger = logger
            mockLogger[metadataKey: "driver"] = "mock"
            let driver = try MockDriver(devices: settings.mockDevices, logger: mockLogger)
            drivers.append(driver)
            mock = driver
        } else if !settings.mockDevices.isEmpty {
            logger.warning("mock devices are configured but the mock driver does not run")
        }
        for option in settings.deviceOptions {
            logger.error("no driver '\(option.driver)' in this build: \(option.path) is not opened",
                         metadata: ["device.path": "\(option.path)"])
        }
        return (drivers, mock)
    }

    /// The built-in domain handlers (none yet: every event resolves `unhandled`).
    static func handlers() -> [any ScanHandler] {
        []
    }
}
