import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge customers show|set|erase`: customers, known by wallet address.
struct CustomersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "customers",
        abstract: "Show and edit customers (known by their wallet address).",
        subcommands: [Show.self, SetDetails.self, Erase.self])
}

extension CustomersCommand {
    /// `customers show WALLET` → `customers.get` and `cards.list`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a customer and the cards linked to their wallet.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The customer's wallet address.")
        var wallet: String

        @Flag(help: "Print {\"customer\": …, \"cards\": [...]} as JSON.")
        var json = false

        func run() async throws {
            try await connection.withClient { client in
                let params: JSONValue = ["walletAddress": .string(wallet)]
                async let customerAnswer = client.call("customers.get", params)
                async let cardsAnswer = client.call("cards.list", params)
                let customer = try await customerAnswer["customer"] ?? .null
                let cards = try await cardsAnswer["cards"] ?? []
                if json {
                    await Console.out(JSONText.pretty(["customer": customer, "cards": cards]))
                    return
                }
                let formatter = DomainFormatter()
                let list = cards.arrayValue ?? []
                let cardLines = formatter.indented(list.isEmpty ? "no cards linked" : formatter.cards(list, showingWallet: false))
                await Console.out(formatter.customer(customer) + "\ncards\n" + cardLines)
            }
        }
    }

    /// `customers set WALLET [--name] [--email] [--phone]` → `customers.upsert`.
    struct SetDetails: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Create a customer or change their details; details not given stay as they are.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The customer's wallet address.")
        var wallet: String

        @Option(help: "Their name.")
        var name: String?

        @Option(help: "Their email address.")
        var email: String?

        @Option(help: "Their phone number.")
        var phone: String?

        @Flag(help: "Print the daemon's answer as JSON.")
        var json = false

        func run() async throws {
            var customer: [String: JSONValue] = ["walletAddress": .string(wallet)]
            for (key, value) in [("name", name), ("email", email), ("phone", phone)] {
                if let value { customer[key] = .string(value) }
            }
            try await connection.callAndPrint("customers.upsert", ["customer": .object(customer)], json: json) { result in
                "saved " + DomainFormatter().customer(result["customer"] ?? .null)
            }
        }
    }

    /// `customers erase WALLET` → `customers.erase`.
    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase a customer: their details, their card links, and their details in the journaled scans.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The customer's wallet address.")
        var wallet: String

        @Flag(help: "Print the daemon's answer as JSON.")
        var json = false

        func run() async throws {
            try await connection.callAndPrint("customers.erase", ["walletAddress": .string(wallet)], json: json) { result in
                let cards = result["cardsUnlinked"]?.intValue ?? 0
                let events = result["eventsRewritten"]?.intValue ?? 0
                return "erased customer \(wallet): \(cards) card(s) unlinked, \(events) journaled scan(s) rewritten"
            }
        }
    }
}
