import CardLink
import Logging
import MockDriver
import OrderLookup
import PCSCDriver
import ProductLookup
import ScanBridgeCore

/// The one place that knows which drivers and handlers are built in.
enum BuiltinPlugins {
    static let driverNames = ["mock", "pcsc"]

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
        if settings.drivers.contains("pcsc") {
            var pcscLogger = logger
            pcscLogger[metadataKey: "driver"] = "pcsc"
            drivers.append(PCSCDriver(settings: settings.pcsc, logger: pcscLogger))
        }
        for option in settings.deviceOptions {
            logger.error("no driver '\(option.driver)' in this build: \(option.path) is not opened",
                         metadata: ["device.path": "\(option.path)"])
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
