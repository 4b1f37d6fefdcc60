import Foundation
import Histogram
import ScanBridgeTesting
import Synchronization

extension ScanBridgeBench {
    /// A well-behaved socket subscriber at a till's pace (100 scans a second) on a daemon whose
    /// gateway listens on loopback with its default limits: alone (the baseline), beside a
    /// `HostileGatewayClient`, then alone again, each on a daemon of its own with a journal of
    /// the same events for the attacker's replays. Meanwhile the daemon's memory and
    /// descriptors are sampled, and a new `GET /healthz` is timed four times a second. The two
    /// baselines' spread says how far a miss of the p99 target is from noise.
    static func hostileGateway(
        stores: CounterStores, workload: CounterWorkload, scans: Int, attacks: Set<String>, report: inout Report
    ) async throws {
        let some =
            attacks == Set(HostileGatewayClient.attacks)
            ? "" : " (only \(HostileGatewayClient.attacks.filter(attacks.contains).joined(separator: "+")))"
        let scenario = "scan.inject → scan, \(workload.description), 100/s, 1 subscriber"
        let first = try await hostileGatewayRun(stores: stores, workload: workload, scans: scans, attacks: nil)
        let attacked = try await hostileGatewayRun(stores: stores, workload: workload, scans: scans, attacks: attacks)
        let again = try await hostileGatewayRun(stores: stores, workload: workload, scans: scans, attacks: nil)
        let (p99, p99Again) = (first.latency.latency.valueAtPercentile(99), again.latency.latency.valueAtPercentile(99))
        let spread = Double(max(p99, p99Again)) / Double(max(1, min(p99, p99Again)))
        report.delivery("hostile gateway, baseline: no attacker: \(scenario)", first.latency)
        var target = Target.ratio(99, of: attacked.latency.latency, to: first.latency.latency, atMost: 2, of: "the baseline's")
        target.spread = spread
        let name = "hostile gateway, beside a hostile gateway client\(some)"
        report.delivery("\(name): \(scenario)", attacked.latency, target: target)
        report.figure(
            "\(name): daemon RSS, sampled peak", String(format: "%.1f MB", attacked.rss),
            target: .atMost(attacked.rss, 128, "≤ 128 MB"))
        report.figure(
            "\(name): daemon's open descriptors, sampled peak", String(format: "%.0f", attacked.descriptors),
            target: .atMost(attacked.descriptors, 1_024, "≤ 1,024"))
        report.figure(
            "\(name): a new GET /healthz, \(attacked.probed.count) of them", attacked.probed.description,
            target: Target("each a 200 within 1 s", met: attacked.probed.met))
        report.delivery(
            "hostile gateway, baseline again: \(scenario); the baselines' p99 differ by \(String(format: "%.2f×", spread))",
            again.latency)
    }

    /// One daemon's figures, with the attacks given beside it or none.
    struct HostileGatewayRun {
        let latency: Delivery
        let rss: Double
        let descriptors: Double
        let probed: HealthProbe.Outcome
    }

    static func hostileGatewayRun(
        stores: CounterStores, workload: CounterWorkload, scans: Int, attacks: Set<String>?
    ) async throws -> HostileGatewayRun {
        let daemon = try await stores.daemon(workload.catalog, arguments: ["--http", "127.0.0.1:0"])
        guard let address = daemon.gatewayAddresses.first else {
            throw BenchmarkFailure(description: "the daemon names no gateway address")
        }
        let token = try readerToken(socketPath: daemon.socketPath)
        try await journal(20_000, into: daemon, workload: workload)
        let pid = daemon.pid ?? 0
        var attacker: Process?
        if let attacks { attacker = try await startGatewayAttacker(address: address, token: token, attacks: attacks) }
        let rss = Peak.rss(of: pid)
        let descriptors = Peak.descriptors(of: pid)
        let probe = HealthProbe(address: address)
        let latency: Delivery
        do {
            latency = try await Scenarios.injectToScanLatency(
                socketPath: daemon.socketPath, every: .milliseconds(10), count: scans, subscribers: 1, workload: workload)
        } catch {
            _ = (rss.stop(), descriptors.stop(), probe.stop())
            await stop(attacker)
            throw error
        }
        let run = HostileGatewayRun(latency: latency, rss: rss.stop(), descriptors: descriptors.stop(), probed: probe.stop())
        await stop(attacker)
        try await daemon.stop()
        return run
    }

    /// `count` of the workload's scans, in batches, into the daemon's journal.
    static func journal(_ count: Int, into daemon: DaemonHarness, workload: CounterWorkload) async throws {
        let socket = try LineSocket(path: daemon.socketPath)
        try await onAThread("journal") {
            // Batches whose answers fit the benchmark's line reader (64 KiB).
            for start in stride(from: 0, to: count, by: 20) {
                let batch = (start..<min(count, start + 20)).map { workload.injectLine(id: $0, index: $0) }
                try socket.write(Array(("[" + batch.joined(separator: ",") + "]\n").utf8))
                _ = try socket.readLine()
            }
        }
    }

    static func startGatewayAttacker(address: String, token: String, attacks: Set<String>) async throws -> Process {
        let chosen = HostileGatewayClient.attacks.filter(attacks.contains).joined(separator: ",")
        let attacker = try await launchAttacker(
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            arguments: ["--attack-gateway", address, "--token", token, "--attacks", chosen])
        // Its connections opened, its streams replaying.
        try await Task.sleep(for: .seconds(3))
        return attacker
    }
}

/// A legitimate client's new request, four times a second until `stop()`: the slowest
/// whole answer, and how many attempts got another status or none (within 5 s), so that a
/// miss says whether the daemon refused the client or never heard it.
final class HealthProbe: Sendable {
    struct Outcome: Sendable {
        var count = 0
        /// The slowest attempt that got a 200.
        var slowest = 0.0
        /// Attempts answered with another status, by status.
        var refused: [Int: Int] = [:]
        /// Attempts that got no answer, by why: not connected, closed without an answer, or
        /// nothing within 5 s.
        var unanswered: [String: Int] = [:]
        var met: Bool { refused.isEmpty && unanswered.isEmpty && slowest <= 1 }

        var description: String {
            var parts = [String(format: "slowest 200 in %.3f s", slowest)]
            for (status, times) in refused.sorted(by: { $0.key < $1.key }) { parts.append("\(times) answered \(status)") }
            for (why, times) in unanswered.sorted(by: { $0.key < $1.key }) { parts.append("\(times) not answered (\(why))") }
            return parts.joined(separator: ", ")
        }
    }

    private let outcome = Mutex(Outcome())
    private let stopped = Mutex(false)
    private let done = DispatchSemaphore(value: 0)

    init(address: String) {
        let thread = Thread { [self] in
            while !stopped.withLock({ $0 }) {
                let started = Nanos.now()
                let status = HealthProbe.get(address)
                let seconds = Double(Nanos.now() - started) / 1e9
                outcome.withLock { outcome in
                    outcome.count += 1
                    switch status {
                    case .success(200): outcome.slowest = max(outcome.slowest, seconds)
                    case .success(let other): outcome.refused[other, default: 0] += 1
                    case .failure(let why): outcome.unanswered[why.description, default: 0] += 1
                    }
                }
                usleep(250_000)
            }
            done.signal()
        }
        thread.name = "health-probe"
        thread.start()
    }

    func stop() -> Outcome {
        stopped.withLock { $0 = true }
        done.wait()
        return outcome.withLock { $0 }
    }

    /// Why an attempt got no answer.
    struct Unanswered: Error, CustomStringConvertible {
        let description: String
    }

    /// The status of a whole answer that came back within 5 s, or why none did.
    static func get(_ address: String) -> Result<Int, Unanswered> {
        let descriptor: Int32
        do {
            descriptor = try GatewaySocket.connect(address)
        } catch {
            return .failure(Unanswered(description: "\(error)"))
        }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET /healthz HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n\r\n".utf8)
        guard HostileGatewayClient.send(descriptor, request) else {
            return .failure(Unanswered(description: "send: \(String(cString: strerror(errno)))"))
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var ended = "closed"
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 { ended = errno == EAGAIN ? "nothing within 5 s" : String(cString: strerror(errno)) }
            guard count > 0 else { break }
            response += chunk[0..<count]
        }
        let statusLine = String(decoding: response.prefix(12), as: UTF8.self)
        guard statusLine.hasPrefix("HTTP/1.1 "), let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            return .failure(Unanswered(description: "\(ended) after \(response.count) bytes"))
        }
        return .success(status)
    }
}
