/// What a catalog assumes when an input leaves it out: the store this daemon serves, its
/// currency, and the region whose variable-measure barcode layouts apply.
public struct CatalogSettings: Sendable, Hashable {
    public var storeId: String
    public var currency: String
    /// A GS1 region code (`GB`, `DE`, `SE`, `NO`, `DK`) for in-store price/weight barcodes.
    public var region: String

    public init(storeId: String = "store_1", currency: String = Currency.defaultCode, region: String = "GB") {
        self.storeId = storeId
        self.currency = currency
        self.region = region
    }
}
