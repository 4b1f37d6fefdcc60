import Foundation
import Histogram
import ScanBridgeTesting
import Synchronization

extension ScanBridgeBench {
    /// A well-behaved subscriber at a till's pace (100 scans a second), `scan.inject` → `scan`,
    /// and the daemon's memory: first alone (the baseline), then beside a `HostileClient`,
    /// each on a daemon of its own with the same configuration.
    static func hostile(
        stores: CounterStores, workload: CounterWorkload, scans: Int, attacks: Set<String>, report: inout Report
    ) async throws {
        // As root, the attacker runs as nobody, whom the configuration makes a reader, as a
        // POS program would be; otherwise as the benchmark's own user, calling only what a
        // reader may call, and the row says so.
        let asReader = getuid() == 0
        for attacked in [false, true] {
            let daemon = try await hostileDaemon(stores: stores, catalog: workload.catalog, asReader: asReader)
            let attacker =
                attacked ? try await startAttacker(socketPath: daemon.socketPath, attacks: attacks, asReader: asReader) : nil
            let pid = daemon.pid ?? 0
            let peakRSS = Peak.rss(of: pid)
            let latency: Delivery
            do {
                latency = try await Scenarios.injectToScanLatency(
                    socketPath: daemon.socketPath, every: .milliseconds(10), count: scans, subscribers: 1, workload: workload)
            } catch {
                peakRSS.stop()
                await stop(attacker)
                throw error
            }
            let peak = peakRSS.stop()
            let (rss, hwm) = (ProcessStat.megabytes("VmRSS", of: pid), ProcessStat.megabytes("VmHWM", of: pid))
            await stop(attacker)
            try await daemon.stop()
            let who = asReader ? "a reader" : "the benchmark's user, reader calls only"
            let some =
                attacks == Set(HostileClient.attacks)
                ? "" : ", only \(HostileClient.attacks.filter(attacks.contains).joined(separator: "+"))"
            let side = attacked ? "beside a hostile client (\(who)\(some))" : "baseline: no attacker"
            report.delivery(
                "hostile, \(side): scan.inject → scan, \(workload.description), 100/s, 1 subscriber", latency,
                target: .percentile(99, of: latency.latency, atMost: .milliseconds(2)))
            report.figure(
                "hostile, \(side): daemon RSS",
                String(format: "%.1f MB at the end, %.1f MB sampled peak (VmHWM %.1f MB)", rss, peak, hwm),
                target: .atMost(hwm, 64, "≤ 64 MB"))
        }
    }

    /// A release daemon with the benchmark's mock scanner; with `asReader`, its socket open to
    /// nogroup and nogroup a reader, so that nobody may connect as one.
    static func hostileDaemon(stores: CounterStores, catalog: CounterStores.Catalog, asReader: Bool) async throws
        -> DaemonHarness
    {
        guard asReader else { return try await stores.daemon(catalog) }
        // nobody must reach the socket in the harness's folder.
        return try await stores.daemon(
            catalog, config: "socket_group: nogroup\nroles:\n  reader_groups: [nogroup]\n",
            folderMode: 0o755)
    }

    static func startAttacker(socketPath: String, attacks: Set<String>, asReader: Bool) async throws -> Process {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let chosen = ["--attacks", HostileClient.attacks.filter(attacks.contains).joined(separator: ",")]
        guard asReader else {
            return try await launchAttacker(URL(fileURLWithPath: executable), arguments: ["--attack", socketPath] + chosen)
        }
        return try await launchAttacker(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", executable, "--attack", socketPath] + chosen)
    }

    /// Starts an attacker process and returns once it says `ready` (its attack whole).
    static func launchAttacker(_ executable: URL, arguments: [String]) async throws -> Process {
        let attacker = Process()
        attacker.executableURL = executable
        attacker.arguments = arguments
        let announced = Pipe()
        attacker.standardOutput = announced
        try attacker.run()
        let ready = try await onAThread("attacker-ready") {
            String(decoding: announced.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("ready")
        }
        guard ready else {
            await stop(attacker)
            throw BenchmarkFailure(description: "the hostile client ended before its attack was whole")
        }
        return attacker
    }

    /// Kills the attacker: SIGKILL, since it has nothing to clean up (and SIGTERM, sent by
    /// `Process.terminate`, is not always delivered to a child Foundation spawned).
    static func stop(_ attacker: Process?) async {
        guard let attacker else { return }
        kill(attacker.processIdentifier, SIGKILL)
        _ = try? await onAThread("attacker-exit") { attacker.waitUntilExit() }
    }
}
