import CameraDriver
import CardLink
import DriverKit
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
    /// The built-in drivers, in the order they are made and listed.
    static let driverFactories: [DriverFactory<ScannerChoices>] = [
        MockDriver.factory(), PCSCDriver.factory(), EvdevDriver.factory, HIDPOSDriver.factory, SerialDriver.factory,
        USBDriver.factory, FileCameraDriver.factory, V4L2Driver.factory,
    ]

    static let driverNames = driverFactories.map(\.name)

    /// The drivers that run when none are named: every built-in one but `mock` unless mock
    /// devices are asked for (`--mock`, the config's `mock:` list). A mock device scans
    /// whatever an admin injects, so a counter must never carry one it did not ask for.
    static func defaultDrivers(mockDevicesAsked: Bool) -> [String] {
        driverFactories.filter { $0.runsByDefault || mockDevicesAsked }.map(\.name)
    }

    /// The drivers to run, and the mock driver's control when it runs. Every device named
    /// with `--device` is read by its driver's factory first, so that a bad one stops the
    /// daemon before any driver starts.
    static func drivers(settings: DaemonSettings, logger: Logger) throws
        -> (drivers: [any DeviceDriver], mock: (any MockDeviceControl)?)
    {
        // The mock driver's devices come from --mock and the config, not from --device.
        var devices: [String: [any Sendable]] = ["mock": settings.mockDevices]
        for option in settings.deviceOptions {
            guard let parse = driverFactories.first(where: { $0.name == option.driver })?.parseDevice else {
                logger.error(
                    "no driver '\(option.driver)' in this build: \(option.path) is not opened",
                    metadata: ["device.path": "\(option.path)"])
                continue
            }
            do {
                devices[option.driver, default: []].append(try parse(option.path, option.settings))
            } catch {
                throw DaemonConfig.LoadError(description: "\(option.origin) \(option.driver):\(option.path): \(error)")
            }
        }
        for factory in driverFactories {
            do {
                try factory.check(devices: devices[factory.name] ?? [])
            } catch {
                throw DaemonConfig.LoadError(description: "--device \(factory.name): \(error)")
            }
        }
        let discovery = settings.scannerDiscovery.map {
            DriverFactory<ScannerChoices>.Discovery(choices: $0.choices, deviceSettings: $0.deviceSettings)
        }
        var made: [any DeviceDriver] = []
        for factory in driverFactories {
            let named = devices[factory.name] ?? []
            guard settings.drivers.contains(factory.name) else {
                if !named.isEmpty {
                    let how = factory.parseDevice == nil ? "configured" : "named with --device"
                    logger.warning("\(factory.name) devices are \(how) but the \(factory.name) driver does not run")
                }
                continue
            }
            made.append(
                try factory.make(
                    devices: named, settings: settings.driverSettings[factory.name], discovery: discovery,
                    logger: logger.for(driver: factory.name)))
        }
        return (made, made.lazy.compactMap { $0 as? any MockDeviceControl }.first)
    }

    /// The built-in domain handlers, in routing order (all have priority 0, so order breaks
    /// ties: an order reference on a Code 128 label is an order before it is a SKU), and the
    /// services the protocol's domain methods use.
    static func domain(repositories: Repositories, settings: DaemonSettings, metrics: ScanMetrics, logger: Logger) throws
        -> (handlers: [any ScanHandler], checks: [any ScanEventCheck], domain: DomainServices)
    {
        let arms = CardArms()
        let products = ProductLookup(products: repositories.products, catalog: settings.catalog)
        let orders = try OrderLookup(orders: repositories.orders, referencePattern: settings.orderReferencePattern)
        let handlers: [any ScanHandler] = [
            CardLinkHandler(cards: repositories.cards, arms: arms, metrics: metrics),
            OrderLookupHandler(lookup: orders),
            ProductLookupHandler(lookup: products),
        ]
        let domain = DomainServices(
            repositories: repositories, catalog: settings.catalog, productLookup: products, orderLookup: orders, arming: arms)
        let sun = SUNCheck(keys: settings.sdmKeys, layout: settings.sunLayout, cards: repositories.cards, logger: logger)
        return (handlers, [sun], domain)
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
