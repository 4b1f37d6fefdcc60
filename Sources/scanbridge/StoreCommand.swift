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
            abstract: "Move this counter's own cards and customers into the shop's store the daemon uses.",
            discussion: """
                Set store.url (or --store) first and restart the daemon; it then keeps this counter's own \
                cards and customers and copies none of the shop's until they are moved. The move is all or \
                nothing: a card linked here to another wallet than in the shop's store moves nothing, and is named.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(help: "postgresql://USER@HOST[:PORT]/DATABASE: checked to be the store the daemon uses.")
        var to: String?

        @Flag(help: "Print the daemon's answer as JSON.")
        var json = false

        func run() async throws {
            let params: JSONValue = to.map { ["to": .string($0)] } ?? [:]
            try await connection.callAndPrint("store.migrate", params, json: json) { result in
                let customers = result["customers"]?.intValue ?? 0
                let cards = result["cards"]?.intValue ?? 0
                return "moved \(customers) customer\(customers == 1 ? "" : "s") and \(cards) card\(cards == 1 ? "" : "s") "
                    + "to the shop's store; this counter now follows it"
            }
        }
    }
}
