import Foundation
import Histogram
import ScanBridgeTesting

/// Several counters on one shop's store: a private PostgreSQL server, release daemons on it,
/// and the shop's catalog written there in SQL. What the store costs a lookup, how soon a
/// change at one counter is seen at another, how soon the counters' events are in
/// `scan_events`, and how long a counter takes to copy the shop's catalog. Every daemon and
/// the server are stopped when the scenario ends, failed or not (`ShopCleanup`).
extension ScanBridgeBench {
    /// The `shop` scenario's counts: a full run's, or `--quick`'s.
    struct ShopSizes {
        let catalog: Int
        let lookupRounds = 4
        let lookupsPerRound: Int
        let changes: Int
        let catchUp: Int
        let counters = 4
        let scansPerSecond = 250
        let scanSeconds: Int

        init(quick: Bool) {
            catalog = quick ? 100_000 : 1_000_000
            lookupsPerRound = quick ? 1_000 : 5_000
            changes = quick ? 50 : 200
            catchUp = quick ? 1_000 : 10_000
            scanSeconds = quick ? 10 : 30
        }
    }

    static func shop(directory: URL, quick: Bool, report: inout Report) async throws {
        if let reason = TestPostgres.unavailableReason {
            report.figure("shop", "skipped: \(reason)")
            return
        }
        ShopCleanup.install()
        defer { ShopCleanup.uninstall() }
        let counters = ShopCounters()
        let server: ShopServer
        do {
            server = try await ShopServer.start()
        } catch {
            ShopCleanup.killAll()
            ShopCleanup.forgetAll()
            throw error
        }
        do {
            try await shop(
                server: server, counters: counters, directory: directory, sizes: ShopSizes(quick: quick), report: &report)
        } catch {
            await ShopCleanup.holdIfInterrupted()
            await counters.stopAll()
            await server.close()
            ShopCleanup.forgetAll()
            throw error
        }
        await counters.stopAll()
        await server.close()
        ShopCleanup.forgetAll()
    }

    private static func shop(
        server: ShopServer, counters: ShopCounters, directory: URL, sizes: ShopSizes, report: inout Report
    ) async throws {
        let size = sizes.catalog
        // The shop: its schema, made by the first counter that reaches it, and the demo's
        // catalog, customer, linked card and repair orders (which the mix scans), written
        // through that counter as `make demo` writes them; then the benchmark's catalog.
        let founder = try await counters.start("till-0", store: server.url)
        try await waitForStore(founder)
        try await CounterStores.importDemo(into: founder)
        try await founder.stop()
        let loaded = try await ShopCatalog.insert(count: size, into: server)
        report.figure(
            "shop: setup: \(size) products into the shop's store in SQL (one INSERT … SELECT, each row logged)",
            String(format: "%.1f s", loaded))
        let last = try await ShopCatalog.lastWritten(on: server)
        let total = Int(try await server.sql("SELECT count(*) FROM scanbridge_products")) ?? 0
        let logged = try await ShopCatalog.lastChange(on: server)

        // A counter that joins the shop with an empty database.
        let reader = try counters.make("till-1", store: server.url)
        let sync = try await firstSync(of: reader, lastBarcode: last.barcode, changes: logged, total: total, server: server)
        report.figure(
            "shop: first sync of \(size) products into an empty counter, spawn → the copy whole (at the log's end)",
            String(format: "%.1f s (ready %.0f ms after spawn; ", sync.seconds, sync.readyMs)
                + "a quarter, half, three quarters of the products held at \(sync.quarters))",
            target: .atMost(sync.seconds, 60, "≤ 60 s"))
        report.figure(
            "shop: the same, the counter's peak RSS (VmHWM; sampled VmRSS peak)",
            String(format: "%.1f MB (%.1f MB)", sync.peakMB, sync.sampledPeakMB))
        report.figure(
            "shop: the same, CPU while it ran: the counter, its busiest threads; PostgreSQL",
            String(format: "counter %.1f s (", sync.counterCPU) + sync.threads
                + String(
                    format: "), its threads waited %.1f s for a CPU; PostgreSQL %.1f s; over %.1f s; ", sync.counterWaited,
                    sync.serverCPU, sync.seconds) + sync.machine)

        // Its database, copied once stopped, is the other counters' start: every one of them
        // then holds the shop's catalog as a counter that has followed it does.
        try await reader.stop()
        let replica = directory.appendingPathComponent("shop-replica.sqlite").path
        ShopCleanup.track(file: replica)
        try await ShopCounters.snapshot(of: reader, to: replica)
        try await reader.start()
        try await CatalogScenarios.settle(daemon: reader)
        try await waitForStore(reader)

        // Lookups, the store's counter and a counter alone on the same file, in turns.
        let alone = try await counters.start("till-alone", store: nil, database: replica)
        let lookups = try await ShopLookups.measure(
            onShop: reader, alone: alone, server: server, catalogSize: size, rounds: sizes.lookupRounds,
            perRound: sizes.lookupsPerRound)
        try await alone.stop()
        let uniform = "products.lookup through the socket, any of \(size) (\(sizes.lookupRounds * sizes.lookupsPerRound) lookups)"
        report.latency("shop: baseline: \(uniform), the same catalog in a counter with no shop store", lookups.alone)
        report.latency(
            "shop: \(uniform), a counter on the shop's store", lookups.onShop,
            target: .percentile(99, of: lookups.onShop, atMost: .microseconds(300)))
        report.ratio("shop: the same ÷ the baseline", lookups.onShop, lookups.alone)
        report.figure("shop: the machine while they ran, in turns", lookups.machine)
        report.figure(
            "shop: the same two, the \(min(size, ShopLookups.bestSellers)) best sellers: no shop store / on the shop's store",
            ShopLookups.side(by: (lookups.bestSellersAlone, lookups.bestSellersOnShop)))
        report.figure(
            "shop: the same two, bridge.hello (no lookup: a request's floor): no shop store / on the shop's store",
            ShopLookups.side(by: (lookups.helloAlone, lookups.helloOnShop)))

        // A change at one counter, seen at another.
        let writer = try await counters.start("till-2", store: server.url, database: replica)
        try await waitForStore(writer)
        let changeLoad = MachineLoad { cpuSeconds(of: [reader, writer]) + server.cpuSeconds }
        let changes = try await ShopChanges.propagation(
            writer: writer, reader: reader, catalogSize: size, changes: sizes.changes)
        let changeMachine = changeLoad.describe()
        let fromAnswer = changes.fromAnswer
        report.figure(
            "shop: a change at one counter seen at another: products.upsert answered at till-2 → "
                + "products.lookup (every 1 ms) at till-1 has it, \(changes.count) changes",
            Report.percentiles(fromAnswer) + "  (\(changes.beforeAnswer) of \(changes.count) seen before the answer)",
            target: .all(
                .percentile(50, of: fromAnswer, atMost: .milliseconds(50)),
                .percentile(99, of: fromAnswer, atMost: .milliseconds(250))))
        report.latency("shop: the same, from the upsert's request", changes.fromRequest)
        report.figure("shop: the machine while the changes ran", changeMachine)
        try await writer.stop()

        // A counter stopped while the shop changed.
        try await reader.stop()
        try await ShopCatalog.changePrices(count: sizes.catchUp, catalogSize: size, on: server)
        let spawned = Nanos.now()
        try await reader.start(timeout: .seconds(60))
        let ready = Nanos.now()
        let caughtUp = try await waitForLookup(
            reader, code: CatalogScenarios.barcode(0), holding: #""price":"\#(ShopCatalog.sentinelPrice)""#,
            within: .seconds(600))
        report.figure(
            "shop: catch-up of \(sizes.catchUp) changes made while the counter was stopped, spawn → the last one held",
            String(
                format: "%.2f s (ready %.0f ms after spawn)", Double(caughtUp - spawned) / 1e9,
                Double(ready - spawned) / 1e6))
        let snapshot = try await snapshotSync(of: reader, server: server, catalogSize: size, changes: sizes.catchUp)
        report.figure(
            "shop: snapshot sync of \(size) products after the log was compacted past a stopped counter, "
                + "spawn → the snapshot copied",
            String(format: "%.1f s, the counter's peak RSS %.1f MB", snapshot.seconds, snapshot.peakMegabytes))

        // Four counters scanning at once.
        try await CatalogScenarios.settle(daemon: reader)
        try await writer.start()
        var scanning: [(name: String, daemon: DaemonHarness)] = [("till-1", reader), ("till-2", writer)]
        for name in (scanning.count + 1...sizes.counters).map({ "till-\($0)" }) {
            let daemon = try await counters.start(name, store: server.url, database: replica)
            scanning.append((name, daemon))
        }
        for (_, daemon) in scanning {
            try await CatalogScenarios.settle(daemon: daemon)
            try await waitForStore(daemon)
        }
        let workload = CounterWorkload(mix: .counter, catalog: .shop(size: size))
        let cpuBefore = (scanning.map { ProcessStat.cpuSeconds(of: $0.daemon.pid ?? 0) ?? 0 }, server.cpuSeconds)
        let scanLoad = MachineLoad { [daemons = scanning.map(\.daemon)] in cpuSeconds(of: daemons) + server.cpuSeconds }
        let scanWaitedBefore = waitingForCPU(of: scanning.map(\.daemon))
        let injected = try await ShopScans.inject(
            into: scanning, perSecond: sizes.scansPerSecond, seconds: sizes.scanSeconds, workload: workload)
        let cpu = (
            zip(scanning, cpuBefore.0).map { (ProcessStat.cpuSeconds(of: $0.daemon.pid ?? 0) ?? 0) - $1 },
            server.cpuSeconds - cpuBefore.1
        )
        let scanWaited = waitingForCPU(of: scanning.map(\.daemon)) - scanWaitedBefore
        let scanMachine = String(format: "their threads waited %.1f s for a CPU; ", scanWaited) + scanLoad.describe()
        let copies = try await ShopScans.copies(of: injected, workload: workload, on: server)
        let scans =
            "\(sizes.counters) counters × \(sizes.scansPerSecond) scans/s for \(sizes.scanSeconds) s (\(workload.description))"
        let delivery = Delivery(
            latency: copies.lag, expected: copies.sent, arrived: copies.sent - copies.lost, misresolved: copies.misresolved,
            outcomes: copies.outcomes, firstError: copies.firstError)
        report.delivery(
            "shop: \(scans): scan_events copy lag, the row's commit − the event's journal time", delivery,
            target: .percentile(99, of: copies.lag, atMost: .seconds(1)))
        let once = copies.lost == 0 && copies.doubled == 0 && copies.rows == copies.sent
        report.figure(
            "shop: the same, every (counter_id, seq) in scan_events once",
            "\(copies.sent) scans sent, \(copies.rows) rows, \(copies.lost) lost, \(copies.doubled) doubled"
                + (copies.negative > 0 ? ", \(copies.negative) rows committed before their journal time" : ""),
            target: Target("none lost or doubled, rows = scans sent", met: once))
        report.lost(copies.doubled, in: "shop: rows of scan_events beyond one per event (doubled)")
        report.figure(
            "shop: the same, CPU over the \(sizes.scanSeconds) s: each counter; PostgreSQL",
            cpu.0.map { String(format: "%.1f", $0) }.joined(separator: ", ") + String(format: " s; %.1f s; ", cpu.1)
                + scanMachine)
    }

    /// What the first sync measured.
    struct FirstSync {
        var seconds = 0.0
        var readyMs = 0.0
        /// When a quarter, a half and three quarters of the log were held: `4.1 s, 8.0 s, 12.2 s`.
        var quarters = ""
        var peakMB = 0.0
        var sampledPeakMB = 0.0
        var counterCPU = 0.0
        var threads = ""
        /// What its threads spent runnable, waiting for a CPU.
        var counterWaited = 0.0
        var serverCPU = 0.0
        /// How busy the machine was meanwhile (`MachineLoad`).
        var machine = ""
    }

    /// A counter started on an empty database, timed from its spawn to the first lookup that
    /// finds the product the shop's log wrote last (a counter applies the log in order, a page
    /// per transaction, so that product is the last); then its database must hold every
    /// product the shop has. Meanwhile its replica's position is read from its file twice a
    /// second, and its memory sampled.
    static func firstSync(of daemon: DaemonHarness, lastBarcode: String, changes: Int, total: Int, server: ShopServer)
        async throws -> FirstSync
    {
        var sync = FirstSync()
        let serverBefore = server.cpuSeconds
        let spawned = Nanos.now()
        try await daemon.start(timeout: .seconds(60))
        sync.readyMs = Double(Nanos.now() - spawned) / 1e6
        guard let pid = daemon.pid else { throw BenchmarkFailure(description: "the counter ended") }
        let load = MachineLoad { (ProcessStat.cpuSeconds(of: pid) ?? 0) + server.cpuSeconds }
        let rss = Peak.rss(of: pid)
        let progress = Task {
            var samples: [(seconds: Double, products: Int)] = []
            while !Task.isCancelled {
                if let held = try? await ShopCounters.replica(of: daemon) {
                    samples.append((Double(Nanos.now() - spawned) / 1e9, held.products))
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
            return samples
        }
        let found: UInt64
        do {
            _ = try await waitForLookup(daemon, code: lastBarcode, holding: #""status":"found""#, within: .seconds(900))
            // An empty counter copies a snapshot, whole only once its replica stands at the log's end.
            try await waitForPosition(changes, of: daemon, within: .seconds(900))
            found = Nanos.now()
        } catch {
            progress.cancel()
            _ = rss.stop()
            throw error
        }
        sync.seconds = Double(found - spawned) / 1e9
        sync.counterCPU = ProcessStat.cpuSeconds(of: pid) ?? 0
        sync.serverCPU = server.cpuSeconds - serverBefore
        sync.threads = ThreadCPU.describe(ThreadCPU.byName(of: pid))
        sync.counterWaited = ThreadCPU.waitingForCPU(of: pid)
        sync.machine = load.describe()
        sync.peakMB = ProcessStat.megabytes("VmHWM", of: pid)
        sync.sampledPeakMB = rss.stop()
        progress.cancel()
        let samples = await progress.value
        sync.quarters = [1, 2, 3].map { quarter in
            samples.first { $0.products * 4 >= total * quarter }.map { String(format: "%.1f s", $0.seconds) } ?? "?"
        }.joined(separator: ", ")
        let held = try await ShopCounters.replica(of: daemon)
        guard held.products == total, held.lastChange == changes else {
            throw BenchmarkFailure(
                description: "after the first sync the counter holds \(held.products) of \(total) products, "
                    + "up to change \(held.lastChange) of \(changes)")
        }
        return sync
    }

    /// CPU seconds so far of the daemons running among `daemons`.
    static func cpuSeconds(of daemons: [DaemonHarness]) -> Double {
        daemons.reduce(0) { $0 + (ProcessStat.cpuSeconds(of: $1.pid ?? 0) ?? 0) }
    }

    /// Seconds the threads of the daemons running among `daemons` have waited for a CPU.
    static func waitingForCPU(of daemons: [DaemonHarness]) -> Double {
        daemons.reduce(0) { $0 + ThreadCPU.waitingForCPU(of: $1.pid ?? 0) }
    }

    /// A snapshot sync after the change log's compaction (a counter that copies the shop's
    /// tables whole rather than the log from its start), timed from spawn to held: nil
    /// while this build has none, and the row says it was not measured.
    /// Stops `counter`, changes prices, compacts the shop's change log past it (every change
    /// aged past `store.change_log_days` but the newest), and times its start until its
    /// replica stands at the log's newest change, which a snapshot's copy reaches only once
    /// whole; returns that and its peak RSS.
    static func snapshotSync(of counter: DaemonHarness, server: ShopServer, catalogSize: Int, changes: Int) async throws
        -> (seconds: Double, peakMegabytes: Double)
    {
        try await counter.stop()
        try await ShopCatalog.changePrices(count: changes, catalogSize: catalogSize, on: server)
        _ = try await server.sql(
            """
            UPDATE scanbridge_changes SET made_at = now() - interval '40 days'
            WHERE id < (SELECT max(id) FROM scanbridge_changes)
            """)
        let compacted = try await server.sql("SELECT scanbridge_compact(30, 0)")
        guard (Int64(compacted) ?? 0) > 0 else { throw BenchmarkFailure(description: "the change log was not compacted") }
        let newest = try await ShopCatalog.lastChange(on: server)
        let spawned = Nanos.now()
        try await counter.start(timeout: .seconds(60))
        try await waitForPosition(newest, of: counter, within: .seconds(600))
        let seconds = Double(Nanos.now() - spawned) / 1e9
        return (seconds, ProcessStat.megabytes("VmHWM", of: counter.pid ?? 0))
    }

    /// Waits until `daemon`'s replica stands at `change` of the shop's log, polling its file, which
    /// the daemon writes and the bench only reads.
    static func waitForPosition(_ change: Int, of daemon: DaemonHarness, within limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while try await ShopCounters.replica(of: daemon, counting: false).lastChange != change {
            guard ContinuousClock.now < deadline else {
                throw BenchmarkFailure(description: "the counter's copy did not reach change \(change) within \(limit)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Looks `code` up at `daemon` every `interval` until the answer holds `marker`; returns
    /// when that answer was read.
    static func waitForLookup(
        _ daemon: DaemonHarness, code: String, holding marker: String, every interval: Duration = .milliseconds(10),
        within limit: Duration
    ) async throws -> UInt64 {
        let socket = try LineSocket(path: daemon.socketPath)
        let request = Array(#"{"jsonrpc":"2.0","id":1,"method":"products.lookup","params":{"code":"\#(code)"}}"#.utf8) + [0x0A]
        let marker = Array(marker.utf8)
        return try await onAThread("shop-watch") {
            let deadline = Nanos.now() + limit.nanoseconds
            var pause = timespec(
                tv_sec: Int(interval.nanoseconds / 1_000_000_000), tv_nsec: Int(interval.nanoseconds % 1_000_000_000))
            while true {
                try socket.write(request)
                let answer = try socket.readLine()
                let arrived = Nanos.now()
                if answer.contains(marker) { return arrived }
                guard arrived < deadline else {
                    throw BenchmarkFailure(
                        description: "\(code) not as awaited within \(limit): \(String(decoding: answer, as: UTF8.self))")
                }
                nanosleep(&pause, nil)
            }
        }
    }

    /// Waits until the counter's `bridge.hello` says its store is `ok` with no problem (the
    /// schema migrated, its replica following).
    static func waitForStore(_ daemon: DaemonHarness) async throws {
        let socket = try LineSocket(path: daemon.socketPath)
        let request = Array(#"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#.utf8) + [0x0A]
        try await onAThread("shop-hello") {
            let deadline = Nanos.now() + 60_000_000_000
            while true {
                try socket.write(request)
                let answer = try socket.readLine()
                if answer.contains(Array(#""state":"ok""#.utf8)), !answer.contains(Array(#""problem""#.utf8)) { return }
                guard Nanos.now() < deadline else {
                    throw BenchmarkFailure(description: "the shop's store is not ok: \(String(decoding: answer, as: UTF8.self))")
                }
                usleep(100_000)
            }
        }
    }
}
