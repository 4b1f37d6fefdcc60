import Foundation
import Histogram
import ScanBridgeTesting
import Synchronization

/// The measured scenarios. Each returns figures for the report table.
enum Scenarios {
    /// Round trips of a short line through a bare Unix socket: the floor under any latency here.
    static func pingPongBaseline(directory: URL, count: Int) async throws -> Histogram<UInt64> {
        let server = try await EchoServer.start(path: directory.appendingPathComponent("echo.sock").path)
        defer { Task { await server.stop() } }
        let client = try await RawConnection.connect(socketPath: server.path)
        var lines = client.lines.makeAsyncIterator()
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        let line = #"{"jsonrpc":"2.0","id":1,"method":"scan.inject","params":{"device":"mock:bench","text":"bench-000001"}}"#
        for index in 0..<(count + count / 10) {
            let sent = Nanos.now()
            try await client.send(line)
            _ = await lines.next()
            if index >= count / 10 { _ = histogram.record(Nanos.now() - sent) }
        }
        await client.close()
        return histogram
    }

    /// `scan.inject` → `scan` notification at every one of `subscribers`, at a fixed rate.
    static func injectToScanLatency(
        daemon: DaemonHarness, rate: Int, count: Int, subscribers: Int
    ) async throws -> Histogram<UInt64> {
        let warmup = count / 10
        let total = count + warmup
        let sendTimes = SendTimes(count: total)
        var readers: [Task<Histogram<UInt64>, Never>] = []
        for _ in 0..<subscribers {
            let connection = try await RawConnection.connect(socketPath: daemon.socketPath)
            try await connection.send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
            var lines = connection.lines.makeAsyncIterator()
            _ = await lines.next()
            readers.append(Task {
                var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
                var seen = 0
                while seen < total, let line = await lines.next() {
                    guard let index = benchIndex(in: line) else { continue }
                    let latency = Nanos.now() - sendTimes.time(of: index)
                    seen += 1
                    if index >= warmup { _ = histogram.record(latency) }
                }
                await connection.close()
                return histogram
            })
        }
        let injector = try await RawConnection.connect(socketPath: daemon.socketPath)
        let interval = UInt64(1_000_000_000 / rate)
        let start = Nanos.now() + 10_000_000
        for index in 0..<total {
            await Nanos.sleep(until: start + UInt64(index) * interval)
            sendTimes.set(index, Nanos.now())
            try await injector.send(injectLine(id: index, index: index))
        }
        var merged = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        for reader in readers { merged.add(await reader.value) }
        await injector.close()
        return merged
    }

    /// The highest rate at which events reach every subscriber with none lost: inject in
    /// JSON-RPC batches, as fast as the daemon answers, and time delivery to all of them.
    static func throughput(daemon: DaemonHarness, events: Int, subscribers: Int, batch: Int = 64) async throws
        -> (eventsPerSecond: Double, lost: Int)
    {
        var counters: [LineCounter] = []
        for _ in 0..<subscribers {
            let counter = try await LineCounter.connect(socketPath: daemon.socketPath)
            counter.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#.utf8) + [0x0A])
            await counter.wait(forLines: 1)
            counters.append(counter)
        }
        let started = Nanos.now()
        try await inject(events: events, into: daemon, batch: batch)
        for counter in counters { await counter.wait(forLines: events + 1) }
        let seconds = Double(Nanos.now() - started) / 1e9
        let lost = counters.map { events + 1 - $0.lines }.reduce(0, +)
        for counter in counters { await counter.close() }
        return (Double(events) / seconds, lost)
    }

    /// Lines per second through the bare echo socket, the throughput baseline.
    static func echoThroughput(directory: URL, lines: Int) async throws -> Double {
        let server = try await EchoServer.start(path: directory.appendingPathComponent("echo2.sock").path)
        let counter = try await LineCounter.connect(socketPath: server.path)
        let line = Array(injectLine(id: 1, index: 1).utf8) + [0x0A]
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

    /// Injects `events` in batches, keeping a few batches in flight.
    static func inject(events: Int, into daemon: DaemonHarness, batch: Int, window: Int = 16) async throws {
        let injector = try await LineCounter.connect(socketPath: daemon.socketPath)
        var sent = 0
        var batches = 0
        while sent < events {
            let size = min(batch, events - sent)
            let requests = (0..<size).map { injectLine(id: sent + $0, index: sent + $0) }
            injector.send(Array("[\(requests.joined(separator: ","))]\n".utf8))
            sent += size
            batches += 1
            if batches > window { await injector.wait(forLines: batches - window) }
        }
        await injector.wait(forLines: batches)
        await injector.close()
    }

    /// The daemon's resident memory after `events` with one subscriber that never reads.
    static func memoryWithStalledSubscriber(daemon: DaemonHarness, events: Int) async throws -> (rssMB: Double, peakMB: Double) {
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        try await stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
        try await inject(events: events, into: daemon, batch: 256)
        let status = try String(contentsOfFile: "/proc/\(daemon.pid ?? 0)/status", encoding: .utf8)
        func megabytes(_ key: String) -> Double {
            let line = status.split(separator: "\n").first { $0.hasPrefix(key) } ?? ""
            return (Double(line.split(separator: " ").dropFirst().first { !$0.isEmpty }.map(String.init) ?? "0") ?? 0) / 1024
        }
        await stalled.close()
        return (megabytes("VmRSS:"), megabytes("VmHWM:"))
    }

    static func injectLine(id: Int, index: Int) -> String {
        let padded = String(index).count >= 7 ? String(index) : String(repeating: "0", count: 7 - String(index).count) + String(index)
        return #"{"jsonrpc":"2.0","id":\#(id),"method":"scan.inject","params":{"device":"mock:bench","text":"bench-\#(padded)"}}"#
    }

    /// The index of a `scan` notification's event, read without parsing the JSON.
    static func benchIndex(in line: String) -> Int? {
        guard line.contains("\"method\":\"scan\""), let range = line.range(of: "bench-") else { return nil }
        return Int(line[range.upperBound...].prefix(while: \.isNumber))
    }
}

/// When each event was sent, written by the sender and read by the subscribers.
final class SendTimes: Sendable {
    private let times: Mutex<[UInt64]>
    init(count: Int) { times = Mutex(Array(repeating: 0, count: count)) }
    func set(_ index: Int, _ time: UInt64) { times.withLock { $0[index] = time } }
    func time(of index: Int) -> UInt64 { times.withLock { $0[index] } }
}
