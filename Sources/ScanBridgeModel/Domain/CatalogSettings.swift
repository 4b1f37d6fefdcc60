import ScanBridgeCodes

/// What a catalog assumes when an input leaves it out: the store this daemon serves, its
/// currency, and the region whose variable-measure barcode layouts apply.
public struct CatalogSettings: Sendable, Hashable {
    public var storeId: String
    public var currency: String
    /// The in-store price/weight barcode layouts: a built-in region (`GB`, `DE`, `SE`, `NO`,
    /// `DK`, `US`, `CA`, `FR`, `NL`) with any layouts the configuration adds or puts instead.
    public var region: VariableMeasure.Region

    public init(storeId: String = "store_1", currency: String = Currency.defaultCode, region: VariableMeasure.Region = .gb) {
        self.storeId = storeId
        self.currency = currency
        self.region = region
    }
}
