import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC

extension CardsCommand {
    /// `cards arm WALLET`: the next card tapped is linked to the wallet → `cards.arm`, then
    /// the `scan` that used the arm, or `cards.disarm` on Ctrl-C or expiry.
    struct Arm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Link the next card tapped on a reader to a wallet, and wait for the tap.",
            discussion: """
                The next tap of a card (on --device, if given) is linked to WALLET, whatever the outcome: \
                a card linked to another wallet is reported as a conflict and exits with status 1. \
                Ctrl-C, or no tap within --timeout, disarms the reader. With --no-wait the command only \
                arms it and returns; a tap within the timeout then links the card.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The customer's wallet address.")
        var wallet: String

        @Option(help: "A name for the card (default: \"Card\" and the last digits of its UID).")
        var name: String?

        @Option(help: "Only a tap on this NFC reader (a device id from `scanbridge devices`).")
        var device: String?

        @Option(help: CardSecurity.help)
        var security: CardSecurity?

        @Option(help: ArgumentHelp("How long the reader stays armed.", valueName: "seconds"))
        var timeout = 30

        @Flag(help: "Arm the reader and return at once, without waiting for the tap.")
        var noWait = false

        @Flag(help: "Print the daemon's answer (with --no-wait) or the tap's resolution as JSON.")
        var json = false

        func validate() throws {
            guard (1...600).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 600 seconds") }
        }

        func run() async throws {
            var params: [String: JSONValue] = ["walletAddress": .string(wallet), "timeoutMs": .int(Int64(timeout) * 1000)]
            if let name { params["cardName"] = .string(name) }
            if let device { params["device"] = .string(device) }
            if let security { params["security"] = .string(security.rawValue) }
            if noWait {
                try await connection.callAndPrint("cards.arm", .object(params), json: json) { result in
                    let until = result["expiresAt"]?.stringValue.map { " until \(DomainFormatter().time($0))" } ?? ""
                    return "armed: the next card tapped\(device.map { " on \($0)" } ?? "")\(until) is linked to wallet \(wallet)"
                }
                return
            }
            try await connection.withClient { client in
                // Listen before arming, so the tap cannot come before anyone hears it.
                var filter: [String: JSONValue] = ["kinds": ["nfc"]]
                if let device { filter["devices"] = [.string(device)] }
                let subscription = try await client.call("events.subscribe", .object(filter))
                let armed = try await client.call("cards.arm", .object(params))
                guard let token = armed["armed"]?.stringValue else {
                    throw ClientError(
                        .unexpectedResult, "the daemon's answer to cards.arm has no token: \(JSONText.compact(armed))")
                }
                await Console.error("Tap the card on the reader\(device.map { " \($0)" } ?? "")… (Ctrl-C to cancel)")
                switch await waitForTap(client, after: subscription["seq"]?.intValue ?? 0) {
                case .tapped(let resolution):
                    try await report(resolution)
                case .timedOut:
                    _ = try? await client.call("cards.disarm", ["armed": .string(token)])
                    await Console.error("no card was tapped within \(timeout) s; the reader is disarmed")
                    throw ExitStatus.negative
                case .interrupted:
                    _ = try? await client.call("cards.disarm", ["armed": .string(token)])
                    await Console.error("cancelled; the reader is disarmed")
                    throw ExitStatus.negative
                case .closed:
                    throw ClientError.connectionClosed(socketPath: client.socketPath)
                }
            }
        }

        private enum Wait: Sendable {
            case tapped(JSONValue)
            case timedOut, interrupted, closed
        }

        /// The first of: the card-link resolution of a tap after `seq`, the timeout, Ctrl-C.
        private func waitForTap(_ client: ScanBridgeClient, after seq: Int64) async -> Wait {
            await withTaskGroup(of: Wait.self) { group in
                group.addTask { [device] in
                    for await notification in client.notifications where notification.method == MethodCatalog.scan {
                        let event = notification.params["event"] ?? .null
                        let resolution = event["resolution"] ?? .null
                        guard (event["seq"]?.intValue ?? 0) > seq, resolution["handler"]?.stringValue == "card-link",
                            ["linked", "conflict"].contains(resolution["status"]?.stringValue),
                            device == nil || event["device"]?.stringValue == device
                        else { continue }
                        return .tapped(resolution)
                    }
                    return .closed
                }
                group.addTask { [timeout] in
                    try? await Task.sleep(for: .seconds(timeout))
                    return .timedOut
                }
                group.addTask {
                    await Interrupt.wait()
                    return .interrupted
                }
                let first = await group.next() ?? .closed
                group.cancelAll()
                return first
            }
        }

        /// Prints what the tap did; a conflict (the card is another wallet's) exits with status 1.
        private func report(_ resolution: JSONValue) async throws {
            let card = resolution["card"] ?? .null
            if json {
                await Console.out(JSONText.pretty(resolution))
            } else if resolution["status"]?.stringValue == "linked" {
                await Console.out("linked \(DomainFormatter().cardName(card)) to wallet \(wallet)")
            } else if resolution["status"]?.stringValue == "unverified" {
                let reason = resolution["reason"]?.stringValue ?? "no-message"
                await Console.error("the tap was not verified (\(reason)): nothing was linked; arm again and tap the card")
            } else {
                await Console.error(
                    resolution["reason"]?.stringValue
                        ?? "\(DomainFormatter().cardName(card)) is linked to another wallet; unlink it first")
            }
            if resolution["status"]?.stringValue != "linked" { throw ExitStatus.negative }
        }
    }
}
