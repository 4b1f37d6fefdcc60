import CameraDriver
import CardLink
import EvdevDriver
import HIDPOSDriver
import Logging
import MockDriver
import OrderLookup
import PCSCDriver
import ProductLookup
import ScanBridgeConfig
import ScanBridgeCore
import ScanBridgeModel
import SerialDriver
import USBDriver

/// The one place that knows which drivers and handlers are built in.
enum BuiltinPlugins {
    static let driverNames = ["mock", "pcsc", "evdev", "hidpos", "serial", "usb", "file-camera", "v4l2"]

    /// The drivers that run when none are named: every built-in one but `mock` unless mock
    /// devices are asked for (`--mock`, the config's `mock:` list). A mock device scans
    /// whatever an admin injects, so a counter must never carry one it did not ask for.
    static func defaultDrivers(mockDevicesAsked: Bool) -> [String] {
        driverNames.filter { $0 != "mock" || mockDevicesAsked }
    }

    /// The drivers to run, and the mock driver's control when it runs.
    static func drivers(settings: DaemonSettings, logger: Logger) throws -> (drivers: [any DeviceDriver], mock: MockDriver?) {
        var drivers: [any DeviceDriver] = []
        var mock: MockDriver?
        if settings.drivers.contains("mock") {
            let driver = try MockDriver(devices: settings.mockDevices, logger: logger.for(driver: "mock"))
            drivers.append(driver)
            mock = driver
        } else if !settings.mockDevices.isEmpty {
            logger.warning("mock devices are configured but the mock driver does not run")
        }
        if settings.drivers.contains("pcsc") {
            drivers.append(PCSCDriver(settings: settings.pcsc, logger: logger.for(driver: "pcsc")))
        }
        var evdevDevices: [EvdevDeviceSpec] = []
        var serialDevices: [SerialDeviceSpec] = []
        var hidposPaths: [String] = []
        var usbDevices: [USBDeviceSpec] = []
        var fileCameras: [FileCameraSpec] = []
        var v4l2Cameras: [V4L2CameraSpec] = []
        for option in settings.deviceOptions {
            do {
                switch option.driver {
                case "evdev": evdevDevices.append(try EvdevDeviceSpec(path: option.path, settings: option.settings))
                case "serial": serialDevices.append(try SerialDeviceSpec(path: option.path, settings: option.settings))
                case USBDriver.driverName: usbDevices.append(try USBDeviceSpec(path: option.path, settings: option.settings))
                case "hidpos":
                    try HIDPOSDriver.checkSettings(option.settings)
                    hidposPaths.append(option.path)
                case FileCameraDriver.driverName:
                    fileCameras.append(try FileCameraSpec(path: option.path, settings: option.settings))
                case V4L2Driver.driverName: v4l2Cameras.append(try V4L2CameraSpec(path: option.path, settings: option.settings))
                default:
                    logger.error(
                        "no driver '\(option.driver)' in this build: \(option.path) is not opened",
                        metadata: ["device.path": "\(option.path)"])
                }
            } catch {
                throw DaemonConfig.LoadError(description: "\(option.origin) \(option.driver):\(option.path): \(error)")
            }
        }
        do {
            try USBDeviceSpec.checkOneInterfaceEach(usbDevices)
        } catch {
            throw DaemonConfig.LoadError(description: "--device usb: \(error)")
        }
        // These drivers run with no device named too: discovery finds theirs.
        let named: [(name: String, count: Int, make: (Logger) -> any DeviceDriver)] = [
            (
                "evdev", evdevDevices.count,
                {
                    EvdevDriver(devices: evdevDevices, discovery: settings.scannerDiscovery, logger: $0)
                }
            ),
            (
                "hidpos", hidposPaths.count,
                {
                    HIDPOSDriver(paths: hidposPaths, discovery: settings.scannerDiscovery?.choices, logger: $0)
                }
            ),
            (
                "serial", serialDevices.count,
                {
                    SerialDriver(devices: serialDevices, discovery: settings.scannerDiscovery?.choices, logger: $0)
                }
            ),
            (
                USBDriver.driverName, usbDevices.count,
                {
                    USBDriver(devices: usbDevices, discovery: settings.scannerDiscovery?.choices, logger: $0)
                }
            ),
            (FileCameraDriver.driverName, fileCameras.count, { FileCameraDriver(devices: fileCameras, logger: $0) }),
            // Cameras are found with the scanners (scanners.discover), and released with them.
            (
                V4L2Driver.driverName, v4l2Cameras.count,
                {
                    V4L2Driver(devices: v4l2Cameras, discovery: settings.scannerDiscovery?.choices, logger: $0)
                }
            ),
        ]
        for driver in named {
            if settings.drivers.contains(driver.name) {
                drivers.append(driver.make(logger.for(driver: driver.name)))
            } else if driver.count > 0 {
                logger.warning("\(driver.name) devices are named with --device but the \(driver.name) driver does not run")
            }
        }
        return (drivers, mock)
    }

    /// The built-in domain handlers, in routing order (all have priority 0, so order breaks
    /// ties: an order reference on a Code 128 label is an order before it is a SKU), and the
    /// services the protocol's domain methods use.
    static func domain(repositories: Repositories, settings: DaemonSettings) throws -> ([any ScanHandler], DomainServices) {
        let arms = CardArms()
        let products = ProductLookup(products: repositories.products, catalog: settings.catalog)
        let orders = try OrderLookup(orders: repositories.orders, referencePattern: settings.orderReferencePattern)
        let handlers: [any ScanHandler] = [
            CardLinkHandler(cards: repositories.cards, arms: arms),
            OrderLookupHandler(lookup: orders),
            ProductLookupHandler(lookup: products),
        ]
        let domain = DomainServices(
            repositories: repositories, catalog: settings.catalog, productLookup: products, orderLookup: orders, arming: arms)
        return (handlers, domain)
    }
}

extension Logger {
    /// This logger with the driver's name in its metadata.
    fileprivate func `for`(driver: String) -> Logger {
        var logger = self
        logger[metadataKey: "driver"] = "\(driver)"
        return logger
    }
}
