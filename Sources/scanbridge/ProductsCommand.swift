import ArgumentParser
import ScanBridgeClient

/// `scanbridge products …`: the point-of-sale catalog.
struct ProductsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "products",
        abstract: "Manage the point-of-sale catalog.",
        subcommands: [ImportCommand<ProductImport>.self])
}

/// `products import`: catalog products through `products.upsert`.
enum ProductImport: ImportKind {
    static var target: ImportTarget { .products() }

    static var discussion: String {
        """
        Besides name and price, a product needs an id, a barcode or a sku. Price is a decimal with at most \
        two places; trackStock and allowNegativeStock take true/false, yes/no or 1/0. Without an id the \
        daemon derives one from the barcode or the SKU, so importing a file again updates its products \
        instead of adding them twice. JSON objects have the same fields.

        Examples:
          scanbridge products import catalog.csv
          scanbridge products import catalog.jsonl --batch 500
          gunzip -c catalog.csv.gz | scanbridge products import - --format csv
        """
    }
}
