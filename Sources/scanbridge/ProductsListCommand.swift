import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge products list`: one page of the catalog, as a table or JSON.
struct ProductsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List catalog products, a page at a time, in id order.",
        discussion: """
            Asks products.list for one page. When more products follow, the last line says the \
            --after to give for the next page (with --json, "next" is that id, null at the end). \
            To read the whole catalog, use products export.
            Examples:
              scanbridge products list
              scanbridge products list --store store_2 --limit 500
              scanbridge products list --after prod_05901234123457 --json
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("store"), help: "Only the products of this store id; every store's by default.")
    var storeId: String?

    @Option(help: "Start after this product id (the \"next\" of the page before).")
    var after: String?

    @Option(help: "Products on the page, 1 to 1000.")
    var limit = 100

    @Flag(help: "Print the answer as JSON: {\"products\": [...], \"next\": id or null}.")
    var json = false

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000") }
    }

    func run() async throws {
        let page = try await connection.withClient { client in
            try await client.call("products.list", ProductsPage.params(storeId: storeId, after: after, limit: limit))
        }
        if json {
            await Console.out(JSONText.pretty(page))
            return
        }
        let products = page["products"]?.arrayValue ?? []
        let rows = products.map { product in
            let cells = ["id", "name", "barcode", "sku", "quantity", "storeId"].map { CatalogExport.cell(product[$0]) }
            let price = CatalogExport.cell(product["price"]) + " " + CatalogExport.cell(product["currency"])
            return [cells[0], cells[1], price] + cells[2...]
        }
        if rows.isEmpty {
            await Console.out("no products")
        } else {
            await Console.out(
                TextTable.render(header: ["ID", "NAME", "PRICE", "BARCODE", "SKU", "QTY", "STORE"], rows: rows))
        }
        if let next = page["next"]?.stringValue {
            await Console.out("more follow: --after \(next)")
        }
    }
}

/// The params of one `products.list` call.
enum ProductsPage {
    static func params(storeId: String?, after: String?, limit: Int) -> JSONValue {
        var params: [String: JSONValue] = ["limit": .int(Int64(limit))]
        if let storeId { params["storeId"] = .string(storeId) }
        if let after { params["after"] = .string(after) }
        return .object(params)
    }
}
