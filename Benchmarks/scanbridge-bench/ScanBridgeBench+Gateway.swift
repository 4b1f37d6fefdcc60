import Foundation
import Histogram
import ScanBridgeTesting
import Synchronization

extension ScanBridgeBench {
    /// The gateway beside the Unix socket, on one daemon listening on loopback: scans at
    /// 1,000/s to 8 subscribers through each transport; the Unix socket's latency while
    /// `/metrics` is scraped every second; and 200 gateway subscribers at 100 scans/s, none
    /// losing a scan, beside the Unix socket's latency without them.
    static func gateway(stores: CounterStores, workload: CounterWorkload, scale: Int, report: inout Report) async throws {
        let daemon = try await stores.daemon(
            workload.catalog, arguments: ["--http", "127.0.0.1:0"], config: "http:\n  max_connections: 512\n")
        guard let address = daemon.gatewayAddresses.first else {
            throw BenchmarkFailure(description: "the daemon names no gateway address")
        }
        let token = try readerToken(socketPath: daemon.socketPath)
        let setup = Gateway(daemon: daemon, address: address, token: token, workload: workload)
        try await transports(setup, count: 20_000 / scale, report: &report)
        try await scraped(setup, count: 20_000 / scale, report: &report)
        try await crowd(setup, scans: 6_000 / scale, report: &report)
        try await daemon.stop()
    }

    /// 1,000/s to 8 subscribers of each transport in turn, twice over, so that each side
    /// sees the machine in the same states; the gateway's figures as ratios of the socket's.
    static func transports(_ setup: Gateway, count: Int, report: inout Report) async throws {
        let (daemon, address, token, workload) = (setup.daemon, setup.address, setup.token, setup.workload)
        var unix = Delivery()
        var gateway = Dictionary(uniqueKeysWithValues: GatewaySocket.Transport.allCases.map { ($0, unix) })
        for _ in 0..<2 {
            unix.add(
                try await Scenarios.injectToScanLatency(
                    socketPath: daemon.socketPath, every: .milliseconds(1), count: count / 2, subscribers: 8,
                    workload: workload))
            for transport in GatewaySocket.Transport.allCases {
                let readers: [any ScanReader] = try (0..<8).map { _ in
                    try GatewaySocket(address: address, token: token, transport: transport)
                }
                gateway[transport]!.add(
                    try await Scenarios.injectToScanLatency(
                        socketPath: daemon.socketPath, every: .milliseconds(1), count: count / 2, readers: readers,
                        workload: workload))
            }
        }
        report.delivery(
            "gateway, baseline: scan.inject → scan on the Unix socket, \(workload.description), 1,000/s, 8 subscribers", unix)
        for transport in GatewaySocket.Transport.allCases {
            let delivery = gateway[transport]!
            report.delivery(
                "gateway: scan.inject → \(transport.rawValue) subscriber, 1,000/s, 8 subscribers", delivery,
                target: .ratios(delivery.latency, to: unix.latency, p50: 1.3, p99: 2, of: "the socket's"))
        }
    }

    /// The Unix socket's latency with `/metrics` scraped every second, beside the same without.
    static func scraped(_ setup: Gateway, count: Int, report: inout Report) async throws {
        let (daemon, address, token, workload) = (setup.daemon, setup.address, setup.token, setup.workload)
        var quiet = Delivery()
        var scraped = quiet
        var failures: [String] = []
        for _ in 0..<2 {
            quiet.add(
                try await Scenarios.injectToScanLatency(
                    socketPath: daemon.socketPath, every: .milliseconds(1), count: count / 2, subscribers: 8,
                    workload: workload))
            let scraper = Task.detached {
                var failed: [String] = []
                while !Task.isCancelled {
                    let (status, _) = (try? GatewaySocket.get(address: address, path: "/metrics", token: token)) ?? ("", 0)
                    if !status.contains(" 200 ") { failed.append(status) }
                    try? await Task.sleep(for: .seconds(1))
                }
                return failed
            }
            scraped.add(
                try await Scenarios.injectToScanLatency(
                    socketPath: daemon.socketPath, every: .milliseconds(1), count: count / 2, subscribers: 8,
                    workload: workload))
            scraper.cancel()
            failures += await scraper.value
        }
        if let failure = failures.first {
            throw BenchmarkFailure(description: "a scrape of /metrics failed: \(failure)")
        }
        report.delivery("gateway, baseline: the same, nothing scraped", quiet)
        report.delivery(
            "gateway: the same, /metrics scraped every second", scraped,
            target: .ratio(99, of: scraped.latency, to: quiet.latency, atMost: 1.5, of: "the same without"))
    }

    /// 200 gateway subscribers (half WebSocket, half SSE) at 100 scans/s: every one gets every
    /// scan, the daemon's memory, and a Unix-socket subscriber's latency beside the same
    /// without them.
    static func crowd(_ setup: Gateway, scans: Int, report: inout Report) async throws {
        let (daemon, address, token, workload) = (setup.daemon, setup.address, setup.token, setup.workload)
        let alone = try await Scenarios.injectToScanLatency(
            socketPath: daemon.socketPath, every: .milliseconds(10), count: scans, subscribers: 1, workload: workload)
        let crowd: [any ScanReader] = try (0..<200).map {
            try GatewaySocket(address: address, token: token, transport: $0 % 2 == 0 ? .webSocket : .serverSentEvents)
        }
        let peakRSS = Peak.rss(of: daemon.pid ?? 0)
        // Every scan the injection makes (its warm-up included), at each of the 200.
        let expected = scans + max(1, scans / 10)
        async let counted = onAThread("crowd") {
            var counts = [Int](repeating: 0, count: crowd.count)
            var received = 0
            try crowd.readMessages(idle: .seconds(30)) { message, index, _ in
                if JSONScan.number(after: #""seq":"#, in: message) != nil {
                    counts[index] += 1
                    received += 1
                }
                return received >= expected * crowd.count
            }
            return counts
        }
        let beside = try await Scenarios.injectToScanLatency(
            socketPath: daemon.socketPath, every: .milliseconds(10), count: scans, subscribers: 1, workload: workload)
        let counts = try await counted
        let peak = peakRSS.stop()
        let lost = counts.map { expected - $0 }.reduce(0, +)
        report.delivery("gateway, baseline: scan.inject → scan on the Unix socket, 100/s, 1 subscriber", alone)
        report.delivery(
            "gateway: the same beside 200 gateway subscribers (100 WebSocket, 100 SSE)", beside,
            target: .ratio(99, of: beside.latency, to: alone.latency, atMost: 1.5, of: "the baseline's"))
        let name = "gateway: 200 gateway subscribers, \(expected) scans each"
        report.figure(
            name, String(format: "%d lost; daemon RSS peak %.1f MB", lost, peak), target: .atMost(peak, 64, "≤ 64 MB"))
        report.lost(lost, in: name)
    }

    /// A reader's token for the gateway, made over the Unix socket as the admin the benchmark is.
    static func readerToken(socketPath: String) throws -> String {
        let socket = try LineSocket(path: socketPath)
        try socket.write(
            Array(#"{"jsonrpc":"2.0","id":1,"method":"tokens.create","params":{"name":"bench","role":"reader"}}"#.utf8)
                + [0x0A])
        let answer = String(decoding: try socket.readLine(), as: UTF8.self)
        guard let start = answer.range(of: #""secret":""#)?.upperBound,
            let end = answer[start...].firstIndex(of: "\"")
        else { throw BenchmarkFailure(description: "tokens.create gave no secret: \(answer)") }
        return String(answer[start..<end])
    }

    static func ratio(_ histogram: Histogram<UInt64>, _ baseline: Histogram<UInt64>, at percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / Double(max(1, baseline.valueAtPercentile(percentile)))
    }

    /// The daemon the gateway scenario measures, and how its subscribers reach it.
    struct Gateway {
        let daemon: DaemonHarness
        let address: String
        let token: String
        let workload: CounterWorkload
    }
}
