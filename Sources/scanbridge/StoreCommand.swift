import ArgumentParser
import Foundation
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge store migrate`: the shop's shared store, as one counter sees it.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Migrate the shop's shared PostgreSQL store, and move this counter's data into it.",
        subcommands: [Migrate.self])
}

extension StoreCommand {
    /// `store migrate [--owner URL] [--to URL]` → `store.migrate`.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move this counter's own products, cards, customers and orders into the shop's store the daemon uses.",
            discussion: """
                Set store.url (or --store) first and restart the daemon; it then keeps this counter's own \
                data and copies none of the shop's until it is moved. The move is all or nothing: a card \
                linked here otherwise than in the shop's store, a customer the shop erased, or a product whose \
                GTIN or SKU another product holds there (or an order's reference another order) moves nothing, \
                and is named.

                With --owner, the daemon first brings the shop's tables up to date as the role that owns \
                them, and grants this counter's role (and the scanbridge_counter role, if there is one) \
                their rows and nothing more. A counter's own role then needs no right to change tables. \
                The owner's password is read from --owner-password-file, else PGPASSWORD.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(help: "postgresql://USER@HOST[:PORT]/DATABASE: checked to be the store the daemon uses.")
        var to: String?

        @Option(help: "postgresql://OWNER@HOST[:PORT]/DATABASE: migrate the store's tables as OWNER first.")
        var owner: String?

        @Option(help: "A file whose first line is the owner's password (mode 0600).")
        var ownerPasswordFile: String?

        @Flag(help: "Print the daemon's answer as JSON.")
        var json = false

        func run() async throws {
            var params: [String: JSONValue] = [:]
            params["to"] = to.map(JSONValue.string)
            params["owner"] = owner.map(JSONValue.string)
            params["ownerPassword"] = try ownerPassword().map(JSONValue.string)
            try await connection.callAndPrint("store.migrate", .object(params), json: json) { result in
                let moved = [("products", "product"), ("customers", "customer"), ("cards", "card"), ("orders", "order")]
                    .map { key, noun in
                        let count = result[key]?.intValue ?? 0
                        return "\(count) \(noun)\(count == 1 ? "" : "s")"
                    }
                let versions = result["migrated"]?.arrayValue?.compactMap(\.intValue) ?? []
                let migrated =
                    versions.isEmpty
                    ? "" : "migrated the shop's store to schema version \(versions.last ?? 0) as its owner; "
                return migrated + "moved \(moved.joined(separator: ", ")) to the shop's store; this counter now follows it"
            }
        }

        /// The owner's password: the file's first line, else `PGPASSWORD`; none without `--owner`.
        private func ownerPassword() throws -> String? {
            guard owner != nil else { return nil }
            guard let ownerPasswordFile else { return ProcessInfo.processInfo.environment["PGPASSWORD"] }
            do {
                return try ScanBridgeModel.SecretFile.password(at: ownerPasswordFile, setting: "--owner-password-file")
            } catch {
                throw ValidationError(error.description)
            }
        }
    }
}
