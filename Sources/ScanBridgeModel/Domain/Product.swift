import ScanBridgeCodes

/// A sellable item of the point-of-sale catalog. A variant (a size, a colour) is a product
/// of its own, with its SKU and barcode, pointing at its parent.
public struct Product: Sendable, Hashable {
    public var id: String
    /// The store the product belongs to; nil: no store, so every daemon's lookups find it.
    public var storeId: String?
    public var name: String
    public var price: Money
    public var sku: String?
    public var category: String?
    /// The barcode as printed: a GTIN (EAN/UPC/ITF-14), a variable-measure item code with
    /// its value digits zeroed, or any other label text.
    public var barcode: String?
    public var trackStock: Bool
    public var quantity: Int64
    public var lowStockThreshold: Int64
    public var allowNegativeStock: Bool
    /// The product this one is a variant of (size, colour…), and the variant's title.
    public var parentId: String?
    public var variant: String?

    public init(
        id: String, storeId: String?, name: String, price: Money, sku: String? = nil, category: String? = nil,
        barcode: String? = nil, trackStock: Bool = false, quantity: Int64 = 0, lowStockThreshold: Int64 = 0,
        allowNegativeStock: Bool = false, parentId: String? = nil, variant: String? = nil
    ) {
        self.id = id
        self.storeId = storeId
        self.name = name
        self.price = price
        self.sku = sku
        self.category = category
        self.barcode = barcode
        self.trackStock = trackStock
        self.quantity = quantity
        self.lowStockThreshold = lowStockThreshold
        self.allowNegativeStock = allowNegativeStock
        self.parentId = parentId
        self.variant = variant
    }

    /// The GTIN-14 of `barcode`, when it is a GTIN with a valid check digit.
    public var gtin: String? {
        barcode.flatMap { try? GTIN.normalize($0) }
    }

    /// The point-of-sale app's rule, so a scan and the till show the same status.
    public var stockStatus: StockStatus {
        guard trackStock else { return .notTracked }
        if quantity <= 0 { return .outOfStock }
        if quantity <= lowStockThreshold { return .low }
        return .inStock
    }

    /// The point-of-sale app's rule, so a scan and the till agree.
    public var canSell: Bool {
        !trackStock || quantity > 0 || allowNegativeStock
    }

    /// Whether the lookups of a daemon serving `store` (nil: none configured) consider this
    /// product: a daemon with no store considers every product; one with a store, that
    /// store's products and the products of no store.
    public func isVisible(to store: String?) -> Bool {
        guard let store, let storeId else { return true }
        return storeId == store
    }
}

/// The point-of-sale app's stock statuses.
public enum StockStatus: String, Sendable, Hashable, CaseIterable {
    case notTracked, inStock, low, outOfStock
}
