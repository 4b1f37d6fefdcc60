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
        let requests = (0..<(count + warmup)).map { injectLine(id: $0, index: $0) }
        let histogram = try await RoundTrips.measure(socketPath: server.path, requests: requests, warmup: warmup)
        await server.stop()
        return histogram
    }

    /// `scan.inject` → `scan` notification at every one of `subscribers`, one injection every
    /// `interval`. The injector and the subscribers are `LineSocket`s on two threads of their
    /// own: one paces and stamps each injection just before its write, the other waits for any
    /// subscriber's line and stamps it as its read returns.
    static func injectToScanLatency(
        socketPath: String, every interval: Duration, count: Int, subscribers: Int
    ) async throws -> Histogram<UInt64> {
        let subscribe = Array(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#.utf8) + [0x0A]
        let readers: [any ScanReader] = try (0..<subscribers).map { _ in
            let reader = try LineSocket(path: socketPath)
            try reader.write(subscribe)
            _ = try reader.readLine()
            return reader
        }
        return try await injectToScanLatency(socketPath: socketPath, every: interval, count: count, readers: readers)
    }

    /// The same, to subscribers already subscribed, through any transport (`ScanReader`).
    static func injectToScanLatency(
        socketPath: String, every interval: Duration, count: Int, readers: [any ScanReader]
    ) async throws -> Histogram<UInt64> {
        let warmup = max(1, count / 10)
        let total = count + warmup
        let sendTimes = SendTimes(count: total)
        let injector = try LineSocket(path: socketPath)
        let injections = (0..<total).map { Array(injectLine(id: $0, index: $0).utf8) + [0x0A] }
        async let received = onAThread("subscribers") {
            var histogram = Histogram<UInt64>.nanoseconds()
            try readers.readMessages(count: total * readers.count) { message, _, arrived in
                guard let index = benchIndex(in: message), index >= warmup else { return }
                _ = histogram.record(arrived - sendTimes.time(of: index))
            }
            return histogram
        }
        try await onAThread("injector") {
            let start = Nanos.now() + 10_000_000
            for (index, injection) in injections.enumerated() {
                Nanos.wait(until: start + UInt64(index) * interval.nanoseconds)
                sendTimes.set(index, Nanos.now())
                try injector.write(injection)
                injector.discardAvailable()
            }
        }
        return try await received
    }

    /// The highest rate at which events reach every subscriber with none lost: inject in
    /// JSON-RPC batches, as fast as the daemon answers, and time delivery to all of them.
    static func throughput(socketPath: String, events: Int, subscribers: Int, batch: Int = 64) async throws
        -> (eventsPerSecond: Double, lost: Int)
    {
        var counters: [LineCounter] = []
        for _ in 0..<subscribers {
            let counter = try await LineCounter.connect(socketPath: socketPath)
            counter.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#.utf8) + [0x0A])
            await counter.wait(forLines: 1)
            counters.append(counter)
        }
        let started = Nanos.now()
        try await inject(events: events, socketPath: socketPath, batch: batch)
        for counter in counters { await counter.wait(forLines: events + 1, idle: .seconds(5)) }
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
    static func inject(events: Int, socketPath: String, batch: Int, window: Int = 16) async throws {
        let injector = try await LineCounter.connect(socketPath: socketPath)
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
    static func memoryWithStalledSubscriber(daemon: DaemonHarness, events: Int) async throws
        -> (rssMB: Double, peakMB: Double, anonymousMB: Double)
    {
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        try await stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
        try await inject(events: events, socketPath: daemon.socketPath, batch: 256, window: 2)
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

    static func injectLine(id: Int, index: Int) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"scan.inject","params":{"device":"mock:bench","text":"\#(benchText(index))"}}"#
    }

    /// The label injected as scan `index`: `bench-0000042`.
    static func benchText(_ index: Int) -> String {
        "bench-" + String(repeating: "0", count: max(0, 7 - String(index).count)) + String(index)
    }

    /// The index in a line's `bench-NNNNNNN` text, read without parsing the JSON.
    static func benchIndex(in line: ByteBuffer) -> Int? {
        benchIndex(in: line.readableBytesView)
    }

    static func benchIndex<Bytes: Collection<UInt8>>(in bytes: Bytes) -> Int? where Bytes.Index == Int {
        let marker = Array("bench-".utf8)
        guard bytes.count > marker.count else { return nil }
        var start = bytes.startIndex
        while start <= bytes.endIndex - marker.count {
            if bytes[start] == marker[0], bytes[start..<(start + marker.count)].elementsEqual(marker) {
                var value = 0
                var index = start + marker.count
                while index < bytes.endIndex, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    value = value * 10 + Int(bytes[index] - 0x30)
                    index += 1
                }
                return value
            }
            start += 1
        }
        return nil
    }
}

/// When each event was sent, written by the sender and read by the subscribers.
final class SendTimes: Sendable {
    private let times: Mutex<[UInt64]>
    init(count: Int) { times = Mutex(Array(repeating: 0, count: count)) }
    func set(_ index: Int, _ time: UInt64) { times.withLock { $0[index] = time } }
    func time(of index: Int) -> UInt64 { times.withLock { $0[index] } }
}
