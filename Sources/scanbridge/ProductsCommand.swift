import ArgumentParser
import ScanBridgeClient

/// `scanbridge products …`: the point-of-sale catalog.
struct ProductsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "products",
        abstract: "Manage the point-of-sale catalog.",
        subcommands: [ImportCommand<ProductImport>.self, ProductsListCommand.self, ProductsExportCommand.self])
}

/// `products import`: catalog products through `products.upsert`.
enum ProductImport: ImportKind {
    static var target: ImportTarget { .products() }
    static let isCatalog = true

    static var discussion: String {
        """
        Besides name and price, a product needs an id, a barcode or a sku. Price is a decimal with at most \
        its currency's decimals (2 for GBP, 0 for JPY, 3 for KWD; without a currency column, the daemon's \
        catalog.currency); trackStock and allowNegativeStock take true/false, yes/no or 1/0. Without an id the \
        daemon derives one from the barcode or the SKU, so importing a file again updates its products \
        instead of adding them twice. JSON objects have the same fields.

        A file with other column names: --map 'Their column=field,…' (or --map-file), \
        --ignore-unknown-columns for the rest, or --preset shopify|woocommerce for those shops' \
        product exports (each variant becomes a product with parentId and variant). The separator \
        (comma, semicolon or tab) and the encoding (UTF-8, or Windows-1252 as Excel saves CSV) are \
        detected; --delimiter and --encoding force them. --prune makes the file the whole catalog \
        of its store: products of that store not in the file are deleted, all at once when the \
        file has been read, and nothing changes if a row is skipped or the import stops.

        Examples:
          scanbridge products import catalog.csv
          scanbridge products import catalog.jsonl --batch 500
          gunzip -c catalog.csv.gz | scanbridge products import - --format csv
          scanbridge products import products_export.csv --preset shopify --prune
          scanbridge products import stock.csv --map 'EAN=barcode,Bezeichnung=name,Preis=price' --ignore-unknown-columns
        """
    }
}
