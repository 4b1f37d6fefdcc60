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
    ///
    /// - Parameter settings: The daemon's catalog settings, or nil when they are not known
    ///   here (the command line's import). A product naming no currency then has the
    ///   daemon's `catalog.currency`, which says how many decimals its price may have
    ///   (`"500"` in a JPY shop, `"1.250"` in a KWD one): its price is checked as an amount
    ///   here and its decimals by the daemon, whose refusal still names the row's line.
    public static func products(settings: CatalogSettings? = nil) -> ImportTarget {
        ImportTarget(method: "products.upsert", member: "products", noun: "product", schema: .products) {
            fields throws(ScanBridgeError) in
            let namesCurrency = try fields.text("currency", maxLength: 3) != nil
            if settings != nil || namesCurrency {
                _ = try Product(input: fields, settings: settings ?? CatalogSettings())
                return
            }
            // The rest is checked as usual, with the price, checked as an amount, standing in as 0.
            var members = fields.members
            if let price = members["price"], price != .null {
                try Money.checkAmount(price, field: fields.field("price"))
                members["price"] = .string("0")
            }
            _ = try Product(input: JSONFields(.object(members), path: fields.path), settings: CatalogSettings())
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
