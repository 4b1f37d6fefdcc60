import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge cards …`: NFC cards linked to customer wallets.
struct CardsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cards",
        abstract: "Link NFC cards to customer wallets; list, block, unblock and unlink them.",
        discussion: """
            A UID is hex, in any of these spellings: 04A1B2C3D4E5F6, 04:a1:b2:c3:d4:e5:f6, 04-A1-B2-C3-D4-E5-F6.
            """,
        subcommands: [Link.self, Arm.self, List.self, Block.self, Unblock.self, Unlink.self])
}

/// The card a command acts on, and how to print the answer.
struct CardOptions: ParsableArguments {
    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The card's UID in hex (04A1B2C3D4E5F6 or 04:A1:B2:…).")
    var uid: String

    @Flag(help: "Print the daemon's answer as JSON.")
    var json = false

    /// `cards.setStatus`, printing `<verb> Card E5:F6 (…): blocked, wallet …`.
    func setStatus(_ status: String, verb: String) async throws {
        try await connection.callAndPrint("cards.setStatus", ["uid": .string(uid), "status": .string(status)], json: json) {
            "\(verb) " + DomainFormatter().card($0["card"] ?? .null)
        }
    }
}

extension CardsCommand {
    /// `cards link UID WALLET [--name NAME]` → `cards.link`.
    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Link a card to a wallet by its UID (linking it again to the same wallet changes nothing).")

        @OptionGroup var card: CardOptions

        @Argument(help: "The customer's wallet address.")
        var wallet: String

        @Option(help: "A name for the card (default: \"Card\" and the last digits of its UID).")
        var name: String?

        @Option(help: CardSecurity.help)
        var security: CardSecurity?

        func run() async throws {
            var params: [String: JSONValue] = ["uid": .string(card.uid), "walletAddress": .string(wallet)]
            if let name { params["cardName"] = .string(name) }
            if let security { params["security"] = .string(security.rawValue) }
            try await card.connection.callAndPrint("cards.link", .object(params), json: card.json) { result in
                "linked \(DomainFormatter().cardName(result["card"] ?? .null)) to wallet \(wallet)"
            }
        }
    }

    /// `cards list [--wallet W]` → `cards.list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the linked cards, or one wallet's.")

        @OptionGroup var connection: ConnectionOptions

        @Option(help: "Only the cards of this wallet.")
        var wallet: String?

        @Flag(help: "Print the daemon's answer ({\"cards\": [...]}) as JSON.")
        var json = false

        func run() async throws {
            let params: JSONValue = wallet.map { ["walletAddress": .string($0)] } ?? [:]
            try await connection.callAndPrint("cards.list", params, json: json) { result in
                let cards = result["cards"]?.arrayValue ?? []
                guard !cards.isEmpty else {
                    return wallet.map { "no cards linked to wallet \($0)" }
                        ?? "no cards linked; link one with `scanbridge cards link`"
                }
                return DomainFormatter().cards(cards)
            }
        }
    }

    /// `cards block UID` → `cards.setStatus` blocked.
    struct Block: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Block a card: its taps are refused until it is unblocked.")
        @OptionGroup var card: CardOptions
        func run() async throws { try await card.setStatus("blocked", verb: "blocked") }
    }

    /// `cards unblock UID` → `cards.setStatus` active.
    struct Unblock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a blocked or inactive card active again.")
        @OptionGroup var card: CardOptions
        func run() async throws { try await card.setStatus("active", verb: "unblocked") }
    }

    /// `cards unlink UID` → `cards.unlink`.
    struct Unlink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unlink a card from its wallet; it can then be linked to another.")
        @OptionGroup var card: CardOptions
        func run() async throws {
            try await card.connection.callAndPrint("cards.unlink", ["uid": .string(card.uid)], json: card.json) { _ in
                "unlinked card \(card.uid)"
            }
        }
    }
}

/// `--security` of `cards link` and `cards arm`: what a tap of the card must prove.
enum CardSecurity: String, ExpressibleByArgument, CaseIterable {
    case uid, secure

    static let help = ArgumentHelp(
        "uid (the default): a tap giving the card's UID is the card; secure: only a tap whose Secure Unique NFC "
            + "message verified (NTAG 424 DNA, with the shop's keys configured).")
}
