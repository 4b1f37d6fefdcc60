import Foundation
import Histogram
import NIOCore
import ScanBridgeTesting
import Synchronization

/// The measured scenarios. Each returns figures for the report table.
enum Scenarios {
    /// Round trips of an inject-sized line through a bare Unix socket, timed the same way as
    /// the daemon's figures: the floor under any latency on this machine, now.
    static func pingPongBaseline(directory: URL, count: Int) async throws -> Histogram<UInt64> {
        let server = try await EchoServer.start(path: directory.appendingPathComponent("echo.sock").path)
        let warmup = count / 10
        let requests = (0..<(count + warmup)).map { injectSizedLine(id: $0) }
        let histogram = try await RoundTrips.measure(socketPath: server.path, requests: requests, warmup: warmup)
        await server.stop()
        return histogram
    }

    /// `scan.inject` → `scan` notification at every one of `subscribers`, one injection of
    /// `workload`'s reads every `interval`. The injector and the subscribers are `LineSocket`s
    /// on two threads of their own: one paces and stamps each injection just before its write
    /// and reads the answers as they come, the other waits for any subscriber's line and stamps
    /// it as its read returns. An answer names its event's `seq`, which ties each arrival to its
    /// injection whatever it reads.
    static func injectToScanLatency(
        socketPath: String, every interval: Duration, count: Int, subscribers: Int, workload: CounterWorkload
    ) async throws -> Delivery {
        try await injectToScanLatency(
            socketPath: socketPath, every: interval, count: count,
            readers: try self.subscribers(socketPath: socketPath, count: subscribers), workload: workload)
    }

    /// `count` connections to the socket, each subscribed to every event.
    static func subscribers(socketPath: String, count: Int) throws -> [any ScanReader] {
        let subscribe = Array(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#.utf8) + [0x0A]
        return try (0..<count).map { _ in
            let reader = try LineSocket(path: socketPath)
            try reader.write(subscribe)
            _ = try reader.readLine()
            return reader
        }
    }

    /// The same, to subscribers already subscribed, through any transport (`ScanReader`).
    /// `checksOutcomes` false: the server resolves nothing (`DesignModel`).
    static func injectToScanLatency(
        socketPath: String, every interval: Duration, count: Int, readers: [any ScanReader], workload: CounterWorkload,
        checksOutcomes: Bool = true
    ) async throws -> Delivery {
        let warmup = max(1, count / 10)
        let total = count + warmup
        let expected = total * readers.count
        let sendTimes = SendTimes(count: total)
        let injector = try LineSocket(path: socketPath)
        let injections = (0..<total).map { Array(workload.injectLine(id: $0, index: $0).utf8) + [0x0A] }
        async let received = onAThread("subscribers") {
            var arrivals: [(seq: Int, time: UInt64)] = []
            arrivals.reserveCapacity(expected)
            try readers.readMessages { message, _, arrived in
                if let seq = JSONScan.number(after: #""seq":"#, in: message) { arrivals.append((seq, arrived)) }
                return arrivals.count >= expected
            }
            return arrivals
        }
        let answers = try await onAThread("injector") {
            var answers = InjectionAnswers(count: total)
            let start = Nanos.now() + 10_000_000
            for (index, injection) in injections.enumerated() {
                Nanos.wait(until: start + UInt64(index) * interval.nanoseconds)
                sendTimes.set(index, Nanos.now())
                try injector.write(injection)
                injector.readAvailableLines { answers.record($0) }
            }
            try injector.readLines(idle: .seconds(10)) { line in
                answers.record(line)
                return answers.isComplete
            }
            return answers
        }
        var injected: [Int: Int] = [:]
        for (index, seq) in answers.seqs.enumerated() { if let seq { injected[seq] = index } }
        var delivery = Delivery(expected: expected, misresolved: answers.errors, firstError: answers.firstError)
        for (seq, arrived) in try await received {
            guard let index = injected[seq] else { continue }
            delivery.arrived += 1
            if index >= warmup { _ = delivery.latency.record(arrived - sendTimes.time(of: index)) }
        }
        for index in warmup..<total {
            let outcome = answers.outcomes[index] ?? "no resolution"
            delivery.outcomes[outcome, default: 0] += 1
            if checksOutcomes, outcome != workload.read(index).outcome.rawValue { delivery.misresolved += 1 }
        }
        return delivery
    }

    /// The highest rate at which events reach every subscriber with none lost: inject in
    /// JSON-RPC batches, as fast as the daemon answers, and time delivery to all of them.
    /// `daemon`: its process, whose CPU the run reports per event.
    static func throughput(
        socketPath: String, daemon: Int32? = nil, events: Int, subscribers: Int, workload: CounterWorkload, batch: Int = 64
    ) async throws -> Throughput {
        let counters = try await LineCounter.subscribed(socketPath: socketPath, count: subscribers)
        let cpu = daemon.flatMap { ProcessStat.cpuSeconds(of: $0) }
        let started = Nanos.now()
        try await inject(events: events, socketPath: socketPath, workload: workload, batch: batch)
        for counter in counters { await counter.wait(forLines: events + 1, idle: .seconds(5)) }
        let seconds = Double(Nanos.now() - started) / 1e9
        let used = cpu.flatMap { before in daemon.flatMap { ProcessStat.cpuSeconds(of: $0) }.map { $0 - before } }
        let lost = counters.map { events + 1 - $0.lines }.reduce(0, +)
        for counter in counters { await counter.close() }
        let outcomes = try await OutcomeTally.replay(socketPath: socketPath, events: events)
        return Throughput(
            eventsPerSecond: Double(events) / seconds, cpuPerEvent: used.map { $0 / Double(events) * 1e6 }, lost: lost,
            outcomes: outcomes.check(against: workload, events: events))
    }

    /// Lines per second through the bare echo socket, the throughput baseline.
    static func echoThroughput(directory: URL, lines: Int) async throws -> Double {
        let server = try await EchoServer.start(path: directory.appendingPathComponent("echo2.sock").path)
        let counter = try await LineCounter.connect(socketPath: server.path)
        let line = Array(injectSizedLine(id: 1).utf8) + [0x0A]
        let chunk = Array((0..<64).map { _ in line }.joined())
        let started = Nanos.now()
        var sent = 0
        while sent < lines {
            counter.send(chunk)
            sent += 64
            if sent % 4096 == 0 { await counter.wait(forLines: sent - 2048) }
        }
        await counter.wait(forLines: sent)
        let rate = Double(sent) / (Double(Nanos.now() - started) / 1e9)
        await counter.close()
        await server.stop()
        return rate
    }

    /// Injects `events` in batches, keeping a few batches in flight; with `answers`, counts the
    /// resolutions the daemon answered.
    static func inject(
        events: Int, socketPath: String, workload: CounterWorkload, batch: Int, window: Int = 16,
        answers: OutcomeTally? = nil
    ) async throws {
        let injector = try await LineCounter.connect(socketPath: socketPath, tally: answers)
        var sent = 0
        var batches = 0
        while sent < events {
            let size = min(batch, events - sent)
            let requests = (0..<size).map { workload.injectLine(id: sent + $0, index: sent + $0) }
            injector.send(Array("[\(requests.joined(separator: ","))]\n".utf8))
            sent += size
            batches += 1
            if batches > window { await injector.wait(forLines: batches - window) }
        }
        await injector.wait(forLines: batches)
        await injector.close()
    }

    /// The daemon's resident memory after `events` with one subscriber that never reads.
    static func memoryWithStalledSubscriber(daemon: DaemonHarness, events: Int, workload: CounterWorkload) async throws
        -> (rssMB: Double, peakMB: Double, anonymousMB: Double)
    {
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        try await stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
        // Counted as they come: a million events are more than the journal may keep to replay.
        let answers = OutcomeTally()
        try await inject(
            events: events, socketPath: daemon.socketPath, workload: workload, batch: 256, window: 2, answers: answers)
        let outcomes = answers.check(against: workload, events: events)
        guard outcomes.isWhole else {
            throw BenchmarkFailure(description: "the memory scenario's scans \(outcomes.summary)")
        }
        // Settled: the daemon gives memory freed after the burst back within a few seconds.
        try await Task.sleep(for: .seconds(5))
        let pid = daemon.pid ?? 0
        let figures = (
            ProcessStat.megabytes("VmRSS", of: pid), ProcessStat.megabytes("VmHWM", of: pid),
            ProcessStat.megabytes("RssAnon", of: pid)
        )
        await stalled.close()
        return figures
    }

    /// A `scan.inject` request of the size the baselines send.
    static func injectSizedLine(id: Int) -> String {
        CounterWorkload(mix: .unknownOnly, catalog: .none).injectLine(id: id, index: id)
    }

    /// The label no product has, read as scan `index`: `bench-0000042`.
    static func benchText(_ index: Int) -> String {
        "bench-" + String(repeating: "0", count: max(0, 7 - String(index).count)) + String(index)
    }
}

/// When each event was sent, written by the sender and read by the subscribers.
final class SendTimes: Sendable {
    private let times: Mutex<[UInt64]>
    init(count: Int) { times = Mutex(Array(repeating: 0, count: count)) }
    func set(_ index: Int, _ time: UInt64) { times.withLock { $0[index] = time } }
    func time(of index: Int) -> UInt64 { times.withLock { $0[index] } }
}
