public import ScanBridgeCodes

/// What a catalog assumes when an input leaves it out: its currency and the region whose
/// variable-measure barcode layouts apply; and the store this daemon serves, if any.
public struct CatalogSettings: Sendable, Hashable {
    /// The store whose products (and the products of no store) lookups find; nil: every
    /// product. Never the store of a product given without one: that product has no store.
    public var storeId: String?
    public var currency: String
    /// The in-store price/weight barcode layouts: a built-in region (`GB`, `DE`, `SE`, `NO`,
    /// `DK`, `US`, `CA`, `FR`, `NL`) with any layouts the configuration adds or puts instead.
    public var region: VariableMeasure.Region

    public init(storeId: String? = nil, currency: String = Currency.defaultCode, region: VariableMeasure.Region = .gb) {
        self.storeId = storeId
        self.currency = currency
        self.region = region
    }
}
