/// WooCommerce's product CSV export. By its Type:
///
/// - `simple`: a product.
/// - `variable`: no product of its own: WooCommerce sells only its variations, so a scan
///   must never find the parent. Its Categories are carried to the variations after it that
///   have none.
/// - `variation`: a product, with `parentId` the Parent cell as WooCommerce writes it (`id:42`
///   or the parent's SKU) and `variant` its attribute values ("Blue / Large").
/// - `grouped`, `external`: no product (a set of other products; a product sold elsewhere).
///
/// The price is the Regular price: a Sale price has dates the catalog cannot express, so it
/// is left out. Stock is tracked when the Stock cell holds a number; backorders allowed
/// (`1` or `notify`) allow negative stock. The barcode is the "GTIN, UPC, EAN, or ISBN"
/// column of recent versions (or a `GTIN`/`EAN`/`Barcode` column a plugin added). A product
/// with neither SKU nor barcode gets the id `woo_<ID>`.
struct WooCommerceRows: PresetRows {
    private struct Positions: Sendable {
        var type = 0
        var name = 0
        var id: Int?
        var sku: Int?
        var gtin: Int?
        var price: Int?
        var stock: Int?
        var lowStock: Int?
        var backorders: Int?
        var categories: Int?
        var parent: Int?
        var attributes: [Int] = []
    }

    private var at = Positions()
    /// The last variable product: how its variations name it, and its category.
    private var parentKeys: Set<String> = []
    private var parentCategory = ""

    mutating func header(_ columns: ExportColumns, line: Int) throws(ImportProblem) {
        at.type = try columns.required(["Type"], preset: .woocommerce, line: line)
        at.name = try columns.required(["Name"], preset: .woocommerce, line: line)
        at.price = try columns.required(["Regular price"], preset: .woocommerce, line: line)
        at.id = columns.position(["ID"])
        at.sku = columns.position(["SKU"])
        at.gtin = columns.position(["GTIN, UPC, EAN, or ISBN", "GTIN", "EAN", "Barcode"])
        at.stock = columns.position(["Stock"])
        at.lowStock = columns.position(["Low stock amount"])
        at.backorders = columns.position(["Backorders allowed?"])
        at.categories = columns.position(["Categories"])
        at.parent = columns.position(["Parent"])
        at.attributes = (1...9).compactMap { columns.position(["Attribute \($0) value(s)"]) }
    }

    mutating func product(_ fields: [String], line: Int) -> [String: String]? {
        let types = Set(cell(fields, at.type).lowercased().split(separator: ",").map { String(trimmingSpaces(String($0))) })
        let id = cell(fields, at.id)
        let sku = cell(fields, at.sku)
        let category = Self.firstCategory(cell(fields, at.categories))
        if types.contains("variable") {
            parentKeys = Set([id.isEmpty ? "" : "id:" + id, sku].filter { !$0.isEmpty })
            parentCategory = category
            return nil
        }
        if types.contains("grouped") || types.contains("external") { return nil }
        let barcode = cell(fields, at.gtin)
        var product: [String: String] = [
            "name": cell(fields, at.name), "price": cell(fields, at.price), "sku": sku, "barcode": barcode,
            "category": category,
        ]
        if types.contains("variation") {
            let parent = cell(fields, at.parent)
            if !parent.isEmpty { product["parentId"] = parent }
            if category.isEmpty, parentKeys.contains(parent) { product["category"] = parentCategory }
            let values = at.attributes.map { cell(fields, $0) }.filter { !$0.isEmpty }
            if !values.isEmpty { product["variant"] = values.joined(separator: " / ") }
        }
        if sku.isEmpty, barcode.isEmpty, !id.isEmpty { product["id"] = "woo_" + id }
        let stock = cell(fields, at.stock)
        product["trackStock"] = stock.isEmpty ? "false" : "true"
        product["quantity"] = stock
        product["lowStockThreshold"] = cell(fields, at.lowStock)
        switch cell(fields, at.backorders).lowercased() {
        case "1", "notify", "yes": product["allowNegativeStock"] = "true"
        default: product["allowNegativeStock"] = "false"
        }
        return product
    }

    /// The first of a Categories cell's comma-separated paths (`Clothing > Hoodies`); a comma
    /// inside a category name is written `\,`.
    static func firstCategory(_ text: String) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                break
            } else {
                result.append(character)
            }
        }
        return String(trimmingSpaces(result))
    }
}
