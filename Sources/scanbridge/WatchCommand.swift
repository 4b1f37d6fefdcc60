import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC

/// `scanbridge watch`: scans and device changes as they happen, until Ctrl-C.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print scans and device changes as they happen, until Ctrl-C.",
        discussion: """
            Each scan is one line: sequence number, time, device, kind and symbology, content, and \
            what the handler that took it answered. Device changes start with +, - or ~. With \
            --json, every notification's params object is printed as one line (NDJSON).
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "Replay the journaled events after this sequence number first, then go on live.")
    var since: UInt64?

    @Option(name: .customLong("kind"), help: "Only this kind of reading (repeatable).")
    var kinds: [DeviceKind] = []

    @Option(name: .customLong("device"), help: "Only this device id (repeatable).")
    var devices: [String] = []

    @Flag(help: "Print one JSON object per notification (NDJSON).")
    var json = false

    func run() async throws {
        try await connection.withClient { client in
            var subscription = try await subscribe(client, since: since)
            // The last event seen, from where a resubscription resumes without a gap.
            var lastSeq = since ?? subscription.latest
            if !json {
                let start = since.map { "replaying from #\($0 + 1)" } ?? "latest event #\(subscription.latest)"
                await Console.error("watching \(client.socketPath) (\(start)); Ctrl-C to stop")
            }
            let formatter = EventFormatter()
            for await notification in client.notifications {
                // After a resubscription the old subscription's last notifications still come in;
                // the new one replays them in order.
                guard notification.subscription == nil || notification.subscription == subscription.id else {
                    continue
                }
                switch notification.method {
                case MethodCatalog.scan:
                    guard let event = await decodeEvent(notification) else { continue }
                    lastSeq = max(lastSeq, event.seq)
                    await Console.out(json ? JSONText.compact(notification.params) : formatter.event(event))
                case MethodCatalog.eventsOverflow:
                    await print(
                        notification,
                        readable: formatter.overflow(
                            dropped: notification.params["dropped"]?.intValue, resumingAfter: lastSeq))
                    _ = try? await client.call("events.unsubscribe", ["subscription": .string(subscription.id)])
                    subscription = try await subscribe(client, since: lastSeq)
                    if json { await Console.error("resubscribed from #\(lastSeq + 1) after an overflow") }
                case MethodCatalog.eventsGap:
                    await print(
                        notification,
                        readable: formatter.gap(
                            from: notification.params["from"]?.intValue, to: notification.params["to"]?.intValue))
                case MethodCatalog.deviceAdded, MethodCatalog.deviceRemoved, MethodCatalog.deviceChanged:
                    let change = String(notification.method.dropFirst("device.".count))
                    let device = try? notification.device()
                    await print(notification, readable: device.map { formatter.device($0, change: change) })
                default:
                    await print(notification, readable: nil)
                }
            }
            throw ClientError.connectionClosed(socketPath: client.socketPath)
        }
    }

    private struct Subscription {
        var id: String
        var latest: UInt64
    }

    private func subscribe(_ client: ScanBridgeClient, since: UInt64?) async throws -> Subscription {
        var params: [String: JSONValue] = [:]
        if !kinds.isEmpty { params["kinds"] = .array(kinds.map { .string($0.rawValue) }) }
        if !devices.isEmpty { params["devices"] = .array(devices.map { .string($0) }) }
        if let since { params["since"] = .int(Int64(since)) }
        let result = try await client.call("events.subscribe", .object(params))
        guard let id = result["subscription"]?.stringValue else {
            throw ClientError(
                .unexpectedResult, "the daemon's answer to events.subscribe names no subscription: \(JSONText.compact(result))")
        }
        return Subscription(id: id, latest: UInt64(max(0, result["seq"]?.intValue ?? 0)))
    }

    /// The event of a scan notification; a malformed one is reported and skipped, not fatal.
    private func decodeEvent(_ notification: ClientNotification) async -> ScanEvent? {
        do {
            return try notification.scanEvent()
        } catch {
            await Console.error("! skipped a scan notification: \(error.message)")
            return nil
        }
    }

    /// Prints a notification: its params as one JSON line with --json, else `readable` when there is one.
    private func print(_ notification: ClientNotification, readable: String?) async {
        if json {
            await Console.out(JSONText.compact(notification.params))
        } else if let readable {
            await Console.out(readable)
        }
    }
}
