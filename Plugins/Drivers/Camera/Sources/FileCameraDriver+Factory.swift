package import DriverKit
package import ScanBridgeCore

extension FileCameraDriver {
    /// The file camera, for the daemon's list of drivers: `--device file-camera:PATH,…` folders
    /// or files of frames. It finds nothing by itself, yet runs with none named, as it always has.
    package static let factory = DriverFactory<ScannerChoices>(
        name: driverName, discovers: false, settings: Never.self,
        parse: { path, settings in try FileCameraSpec(path: path, settings: settings) }
    ) { setup in
        FileCameraDriver(devices: setup.devices, logger: setup.logger)
    }
}
