import ScanBridgeCodes

extension Product {
    /// The longest store id, in characters (a product's `storeId`, `catalog.store_id`).
    public static let storeIdMaxLength = 128

    /// The product as docs/protocol.md shows it, derived fields included.
    public var wire: JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(id), "storeId": storeId.map(JSONValue.string) ?? .null, "name": .string(name),
            "price": .string(price.amount), "currency": .string(price.currency),
            "sku": sku.map(JSONValue.string) ?? .null, "category": category.map(JSONValue.string) ?? .null,
            "barcode": barcode.map(JSONValue.string) ?? .null, "gtin": gtin.map(JSONValue.string) ?? .null,
            "trackStock": .bool(trackStock), "quantity": .int(quantity), "lowStockThreshold": .int(lowStockThreshold),
            "allowNegativeStock": .bool(allowNegativeStock), "stockStatus": .string(stockStatus.rawValue),
            "canSell": .bool(canSell),
        ]
        if let parentId { members["parentId"] = .string(parentId) }
        if let variant { members["variant"] = .string(variant) }
        return .object(members)
    }

    /// Reads and validates a product given by a client (`products.upsert`, an import row).
    ///
    /// `id` may be left out when the product has a barcode or a SKU: it is then derived from
    /// them, so importing the same file twice updates instead of duplicating.
    public init(input: JSONFields, settings: CatalogSettings) throws(ScanBridgeError) {
        let name = try input.requiredText("name")
        guard let priceValue = input.members["price"], priceValue != .null else {
            throw .invalidParams("\(input.field("price")) is required", field: input.field("price"))
        }
        let currency =
            try input.text("currency", maxLength: 3)
            .map { code throws(ScanBridgeError) in try Currency.validated(code, field: input.field("currency")) }
            ?? settings.currency
        // Read in the currency it is given with: a product's currency changed converts nothing.
        let price = try Money.parseAmount(priceValue, currency: currency, field: input.field("price"))
        let sku = try input.text("sku", maxLength: 64)
        let barcode = try input.text("barcode", maxLength: 64)
        // A barcode shaped like a GTIN must be one; it is normalised once, for the check and the id.
        var gtin: String?
        if let barcode, barcode.utf8.allSatisfy({ (0x30...0x39).contains($0) }), [8, 12, 13, 14].contains(barcode.utf8.count) {
            do throws(CodeError) {
                gtin = try GTIN.normalize(barcode)
            } catch {
                throw .invalidParams("\(input.field("barcode")): \(error.message)", field: input.field("barcode"))
            }
        }
        let derivedID = (gtin ?? barcode ?? sku).map { "prod_\($0)" }
        guard let id = try input.text("id", maxLength: 128) ?? derivedID else {
            throw .invalidParams(
                "\(input.path.isEmpty ? "the product" : input.path) needs an id, a barcode or a sku", field: input.field("id"))
        }
        let counts: ClosedRange<Int64> = -1_000_000_000...1_000_000_000
        self.init(
            // Left out, null or blank: the product has no store, and every daemon finds it.
            id: id, storeId: try input.text("storeId", maxLength: Self.storeIdMaxLength), name: name,
            price: Money(minorUnits: price, currency: currency), sku: sku,
            category: try input.text("category"), barcode: barcode,
            trackStock: try input.bool("trackStock") ?? false, quantity: try input.integer("quantity", in: counts) ?? 0,
            lowStockThreshold: try input.integer("lowStockThreshold", in: 0...1_000_000_000) ?? 0,
            allowNegativeStock: try input.bool("allowNegativeStock") ?? false,
            parentId: try input.text("parentId", maxLength: 128), variant: try input.text("variant"))
    }
}
