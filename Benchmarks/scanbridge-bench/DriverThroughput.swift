import Foundation
import ScanBridgeTesting

/// The path a device's reads take, at full speed: mock devices playing scripts of the
/// counter's mix with no wait between reads, so each read goes alone through the driver host,
/// the normalizer, the handlers, the journal and the subscribers, as a scanner's would.
enum DriverThroughput {
    /// The scripts wait this long before their first read: time for the daemon to load its
    /// catalog's keys and for the subscribers to subscribe.
    static let startDelay = 20

    /// Events a second to `subscribers`, from the first event's arrival to the last event's
    /// arrival at every subscriber; and the events some subscriber never got.
    static func measure(stores: CounterStores, workload: CounterWorkload, events: Int, subscribers count: Int)
        async throws -> Throughput
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scanbridge-bench-scripts-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var config = "mock:\n"
        for (kind, device) in [
            ("barcode", CounterWorkload.barcodeScanner), ("nfc", CounterWorkload.cardReader), ("qr", CounterWorkload.camera),
        ] {
            let reads = (0..<events).map(workload.read).filter { $0.device == device }
            guard !reads.isEmpty else { continue }
            let lines = reads.enumerated().map { CounterWorkload.scriptLine($1, delay: $0 == 0 ? "\(startDelay)" : "0") }
            let script = folder.appendingPathComponent("\(kind).script")
            try (lines.joined(separator: "\n") + "\n").write(to: script, atomically: false, encoding: .utf8)
            config += "  - kind: \(kind)\n    id: script-\(kind)\n    script: \(script.path)\n"
        }
        let started = ContinuousClock.now
        let daemon = try await stores.daemon(workload.catalog, config: config)
        let counters = try await LineCounter.subscribed(socketPath: daemon.socketPath, count: count)
        guard ContinuousClock.now - started < .seconds(startDelay) else {
            throw BenchmarkFailure(description: "the scripts began before the subscribers were in; raise startDelay")
        }
        await counters[0].wait(forLines: 2)
        let first = Nanos.now()
        let cpu = daemon.pid.flatMap { ProcessStat.cpuSeconds(of: $0) }
        for counter in counters { await counter.wait(forLines: events + 1, idle: .seconds(5)) }
        let seconds = Double(Nanos.now() - first) / 1e9
        let used = cpu.flatMap { before in daemon.pid.flatMap { ProcessStat.cpuSeconds(of: $0) }.map { $0 - before } }
        let lost = counters.map { events + 1 - $0.lines }.reduce(0, +)
        for counter in counters { await counter.close() }
        let resolutions = try await OutcomeTally.replay(socketPath: daemon.socketPath, events: events)
        try await daemon.stop()
        return Throughput(
            eventsPerSecond: Double(events - 1) / seconds, cpuPerEvent: used.map { $0 / Double(events - 1) * 1e6 },
            lost: lost,
            outcomes: resolutions.check(against: workload, events: events))
    }
}
