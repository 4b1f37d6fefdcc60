import Foundation
public import ScanBridgeModel

/// What an import fills: the upsert method and its array member, the CSV columns, and the
/// check each record passes before it is sent, so a bad row is reported by its line.
public struct ImportTarget: Sendable {
    /// `products.upsert`.
    public var method: String
    /// The params member holding the batch, which also names the elements in the daemon's
    /// errors (`products[3].price`).
    public var member: String
    /// What one record is, for messages: `product`, `order`.
    public var noun: String
    public var schema: ImportSchema
    /// Throws what is wrong with a record, the field named relative to the record (`price`).
    public var validate: @Sendable (JSONFields) throws(ScanBridgeError) -> Void

    public init(
        method: String, member: String, noun: String, schema: ImportSchema,
        validate: @escaping @Sendable (JSONFields) throws(ScanBridgeError) -> Void
    ) {
        self.method = method
        self.member = member
        self.noun = noun
        self.schema = schema
        self.validate = validate
    }

    /// Catalog products (`products.upsert`), checked as `Product(input:settings:)` does. The
    /// object is sent as it is: the daemon fills what it leaves out from its own settings.
    public static func products(settings: CatalogSettings = CatalogSettings()) -> ImportTarget {
        ImportTarget(method: "products.upsert", member: "products", noun: "product", schema: .products) {
            fields throws(ScanBridgeError) in
            _ = try Product(input: fields, settings: settings)
        }
    }

    /// Repair orders with their devices (`orders.upsert`), checked as `RepairOrder(input:now:)` does.
    public static func orders() -> ImportTarget {
        ImportTarget(method: "orders.upsert", member: "orders", noun: "order", schema: .orders) {
            fields throws(ScanBridgeError) in
            _ = try RepairOrder(input: fields, now: Date())
        }
    }
}
