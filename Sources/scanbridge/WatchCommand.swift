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
            When the daemon goes away (a restart), watch says so on standard error, connects \
            again (every 0.2 s at first, every 5 s at most) and resumes after the last scan it \
            printed, so none is missed or printed twice. It exits on Ctrl-C; with status 2 when \
            no daemon answers at the start, 3 when your role may not watch.
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
        // The last event printed (or the start), from where a resubscription resumes: on a new
        // connection as after an overflow, so no event is missed or printed twice.
        var lastSeq = since
        var client = try await connect()
        if !json {
            let start = since.map { "replaying from #\($0 + 1)" } ?? "the latest event"
            await Console.error("watching \(client.socketPath) (\(start)); Ctrl-C to stop")
        }
        while true {
            let ended: any Error
            do {
                try await watch(client, lastSeq: &lastSeq)
                ended = ClientError.connectionClosed(socketPath: client.socketPath)
            } catch {
                ended = error
            }
            await client.close()
            guard Self.isGone(ended) else { throw await ConnectionOptions.report(ended) }
            await Console.error("daemon gone; reconnecting…", style: .warning)
            client = try await reconnect()
            await Console.error("reconnected; resuming after #\(lastSeq ?? 0)", style: .success)
        }
    }

    /// The first connection: a daemon that is not there at the start is an error (status 2).
    private func connect() async throws -> ScanBridgeClient {
        do {
            return try await ScanBridgeClient.connect(socketPath: connection.socketPath)
        } catch {
            throw await ConnectionOptions.report(error)
        }
    }

    /// Connects again, trying every 0.2 s at first and every 5 s at most, until the daemon
    /// answers or something other than its absence stops it.
    private func reconnect() async throws -> ScanBridgeClient {
        var delay = Duration.milliseconds(200)
        while true {
            try await Task.sleep(for: delay)
            do {
                return try await ScanBridgeClient.connect(socketPath: connection.socketPath)
            } catch {
                guard Self.isGone(error) else { throw await ConnectionOptions.report(error) }
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    /// Whether `error` says the daemon went away or is not back yet, rather than refusing.
    private static func isGone(_ error: any Error) -> Bool {
        guard let error = error as? ClientError else { return false }
        return [.connectionClosed, .noDaemon, .connectFailed].contains(error.code)
    }

    /// Subscribes on `client` and prints until the connection ends; `lastSeq` follows what was printed.
    private func watch(_ client: ScanBridgeClient, lastSeq: inout UInt64?) async throws {
        var subscription = try await subscribe(client, since: lastSeq)
        if let last = lastSeq, subscription.latest < last {
            // Another database: its events are numbered anew, and the ones to come are new.
            await Console.error(
                "the daemon's journal ends at #\(subscription.latest), before #\(last): it is another database; "
                    + "printing its events from #\(subscription.latest + 1)", style: .warning)
            lastSeq = subscription.latest
        }
        if lastSeq == nil { lastSeq = subscription.latest }
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
                guard event.seq > lastSeq ?? 0 else { continue }
                lastSeq = event.seq
                await Console.out(json ? JSONText.compact(notification.params) : formatter.event(event))
            case MethodCatalog.eventsOverflow:
                let resumeAfter = lastSeq ?? 0
                await print(
                    notification,
                    readable: formatter.overflow(
                        dropped: notification.params["dropped"]?.intValue, resumingAfter: resumeAfter))
                _ = try? await client.call("events.unsubscribe", ["subscription": .string(subscription.id)])
                subscription = try await subscribe(client, since: resumeAfter)
                if json { await Console.error("resubscribed from #\(resumeAfter + 1) after an overflow") }
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
