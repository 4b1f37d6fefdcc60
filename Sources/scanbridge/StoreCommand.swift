import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge store migrate`: the shop's shared store, as one counter sees it.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Move this counter's data into the shop's shared PostgreSQL store.",
        subcommands: [Migrate.self])
}

extension StoreCommand {
    /// `store migrate [--to URL]` → `store.migrate`.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move this counter's own products, cards, customers and orders into the shop's store the daemon uses.",
            discussion: """
                Set store.url (or --store) first and restart the daemon; it then keeps this counter's own \
                data and copies none of the shop's until it is moved. The move is all or nothing: a card \
                linked here otherwise than in the shop's store, a customer the shop erased, or a product whose \
                GTIN or SKU another product holds there (or an order's reference another order) moves nothing, \
                and is named.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(help: "postgresql://USER@HOST[:PORT]/DATABASE: checked to be the store the daemon uses.")
        var to: String?

        @Flag(help: "Print the daemon's answer as JSON.")
        var json = false

        func run() async throws {
            let params: JSONValue = to.map { ["to": .string($0)] } ?? [:]
            try await connection.callAndPrint("store.migrate", params, json: json) { result in
                let moved = [("products", "product"), ("customers", "customer"), ("cards", "card"), ("orders", "order")]
                    .map { key, noun in
                        let count = result[key]?.intValue ?? 0
                        return "\(count) \(noun)\(count == 1 ? "" : "s")"
                    }
                return "moved \(moved.joined(separator: ", ")) to the shop's store; this counter now follows it"
            }
        }
    }
}
