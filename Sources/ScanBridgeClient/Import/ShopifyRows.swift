/// Shopify's product CSV. The first row of a product carries its Title, Type and first
/// variant; the next rows of the same Handle carry only the variant columns (another
/// variant) or only an image (no product of its own). Each variant becomes a product with
/// its own barcode, SKU and price, named after the product, with `parentId` the Handle and
/// `variant` its option values ("Large / Red"); a product whose one variant is Shopify's
/// "Default Title" has neither. Both the classic headers (`Variant SKU`, `Variant Price`…)
/// and the newer ones (`URL handle`, `SKU`, `Price`…) are read.
struct ShopifyRows: PresetRows {
    private struct Positions: Sendable {
        var handle = 0
        var title: Int?
        var type: Int?
        var category: Int?
        var options: [Int] = []
        var sku: Int?
        var barcode: Int?
        var price: Int?
        var quantity: Int?
        var tracker: Int?
        var policy: Int?
    }

    private var at = Positions()
    /// The product the last rows belong to: its Handle and what its first row said.
    private var handle = ""
    private var title = ""
    private var category = ""

    mutating func header(_ columns: ExportColumns, line: Int) throws(ImportProblem) {
        at.handle = try columns.required(["Handle", "URL handle"], preset: .shopify, line: line)
        at.title = try columns.required(["Title"], preset: .shopify, line: line)
        at.price = try columns.required(["Variant Price", "Price"], preset: .shopify, line: line)
        at.type = columns.position(["Type"])
        at.category = columns.position(["Product Category"])
        at.options = (1...3).compactMap { columns.position(["Option\($0) Value"]) }
        at.sku = columns.position(["Variant SKU", "SKU"])
        at.barcode = columns.position(["Variant Barcode", "Barcode"])
        at.quantity = columns.position(["Variant Inventory Qty", "Inventory quantity"])
        at.tracker = columns.position(["Variant Inventory Tracker", "Inventory tracker"])
        at.policy = columns.position(["Variant Inventory Policy", "Continue selling when out of stock"])
    }

    mutating func product(_ fields: [String], line: Int) -> [String: String]? {
        let rowHandle = cell(fields, at.handle)
        if rowHandle != handle {
            handle = rowHandle
            title = cell(fields, at.title)
            let type = cell(fields, at.type)
            category = type.isEmpty ? cell(fields, at.category) : type
        }
        let options = at.options.map { cell(fields, $0) }.filter { !$0.isEmpty }
        let sku = cell(fields, at.sku)
        let barcode = Self.barcode(cell(fields, at.barcode))
        let price = cell(fields, at.price)
        // A row with only an image (or other product-level columns) is no variant.
        guard !(options.isEmpty && sku.isEmpty && barcode.isEmpty && price.isEmpty) else { return nil }
        var product: [String: String] = ["name": title, "price": price, "sku": sku, "barcode": barcode, "category": category]
        let isDefault = options.isEmpty || options == ["Default Title"]
        if !isDefault {
            product["variant"] = options.joined(separator: " / ")
            product["parentId"] = handle
        }
        if sku.isEmpty, barcode.isEmpty, !handle.isEmpty {
            // Without a barcode or SKU the daemon cannot derive an id: the Handle and options are stable.
            product["id"] = "shopify_" + handle + (isDefault ? "" : "/" + options.joined(separator: "/"))
        }
        let tracker = cell(fields, at.tracker)
        product["trackStock"] = tracker.isEmpty ? "false" : "true"
        if !tracker.isEmpty { product["quantity"] = cell(fields, at.quantity) }
        switch cell(fields, at.policy).lowercased() {
        case "continue", "true", "yes": product["allowNegativeStock"] = "true"
        default: product["allowNegativeStock"] = "false"
        }
        return product
    }

    /// A barcode as Shopify exports it, without the apostrophe a spreadsheet adds to keep
    /// its leading zeros.
    static func barcode(_ text: String) -> String {
        text.hasPrefix("'") ? String(text.dropFirst()) : text
    }
}
