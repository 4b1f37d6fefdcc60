import ScanBridgeModel

/// The repositories the domain handlers and methods work on, whatever stores them.
public struct Repositories: Sendable {
    public let products: any ProductRepository
    public let cards: any CardRepository
    public let customers: any CustomerRepository
    public let orders: any OrderRepository

    public init(
        products: any ProductRepository, cards: any CardRepository, customers: any CustomerRepository,
        orders: any OrderRepository
    ) {
        self.products = products
        self.cards = cards
        self.customers = customers
        self.orders = orders
    }
}
