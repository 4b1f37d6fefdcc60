public import ScanBridgeModel

/// What the domain methods of the protocol (`products.*`, `cards.*`, `customers.*`,
/// `orders.*`) work on: the repositories and the built-in handlers' lookups and arms.
public struct DomainServices: Sendable {
    public let repositories: Repositories
    public let catalog: CatalogSettings
    public let productLookup: any CodeLookup
    public let orderLookup: any CodeLookup
    public let arming: any CardArming

    public init(
        repositories: Repositories, catalog: CatalogSettings, productLookup: any CodeLookup,
        orderLookup: any CodeLookup, arming: any CardArming
    ) {
        self.repositories = repositories
        self.catalog = catalog
        self.productLookup = productLookup
        self.orderLookup = orderLookup
        self.arming = arming
    }
}
