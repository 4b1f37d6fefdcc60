package import DriverKit
package import ScanBridgeCore

extension V4L2Driver {
    /// The V4L2 camera driver, for the daemon's list of drivers: `--device v4l2:PATH,…`
    /// cameras, and the ones discovery finds with the scanners (and releases with them).
    package static let factory = DriverFactory<ScannerChoices>(
        name: driverName, discovers: true, settings: Never.self,
        parse: { path, settings in try V4L2CameraSpec(path: path, settings: settings) }
    ) { setup in
        V4L2Driver(devices: setup.devices, discovery: setup.discovery?.choices, logger: setup.logger)
    }
}
