/// What a catalog assumes when an input leaves it out: its currency and the region whose
/// variable-measure barcode layouts apply; and the store this daemon serves, if any.
public struct CatalogSettings: Sendable, Hashable {
    /// The store whose products (and the products of no store) lookups find; nil: every
    /// product. Never the store of a product given without one: that product has no store.
    public var storeId: String?
    public var currency: String
    /// A GS1 region code (`GB`, `DE`, `SE`, `NO`, `DK`) for in-store price/weight barcodes.
    public var region: String

    public init(storeId: String? = nil, currency: String = Currency.defaultCode, region: String = "GB") {
        self.storeId = storeId
        self.currency = currency
        self.region = region
    }
}
