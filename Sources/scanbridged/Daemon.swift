import EvdevDriver
import Foundation
import Logging
import NIOPosix
import ScanBridgeCore
import ScanBridgeGateway
import ScanBridgeMetrics
import ScanBridgeModel
import ScanBridgeServer
import ScanBridgeService
import ScanBridgeStore
import ServiceLifecycle
import Synchronization
import UnixSignals

#if SharedStore
import ScanBridgeSharedStore
#endif

/// Wires the store, the pipeline, the drivers and the server into one service group.
struct Daemon {
    let settings: DaemonSettings
    let logger: Logger
    let started: ContinuousClock.Instant

    func run() async throws {
        let (drivers, mock) = try BuiltinPlugins.drivers(settings: settings, logger: logger)
        // One registry for the daemon, handed to what records (never the process-wide MetricsSystem).
        let metrics = PrometheusMetrics()
        let scanMetrics = ScanMetrics(factory: metrics.factory, drivers: drivers.map(\.name))
        let publisher = Publisher(metrics: scanMetrics)
        // Rung on every commit, for the copy of the events to the shop's store.
        let committed = commitBell()
        // Opening, migrating and pruning the database is blocking I/O: off the cooperative pool.
        let (journal, database, scanners, tokens) = try await NIOThreadPool.singleton.runIfActive { [settings, logger] in
            // Private to the daemon, or readable by its group; never one another user could write in.
            try DaemonFolder.prepare(
                URL(fileURLWithPath: settings.databasePath).deletingLastPathComponent().path,
                mode: settings.socketGroup == nil ? 0o700 : 0o750, group: settings.socketGroup, holding: "database")
            let database = try StoreDatabase(
                path: settings.databasePath, durability: settings.durability, logger: logger,
                metrics: metrics.factory)
            let journal = try SQLiteJournal(
                database: database, retention: settings.retention, heldAfter: committed.map { _ in 0 }, logger: logger,
                onCommit: {
                    publisher.publish($0)
                    committed?.ring()
                })
            // The operator's claims from earlier runs, in force before any driver looks for scanners.
            let scanners = try settings.scannerDiscovery.map { discovery in
                try ScannerClaims.restored(
                    choices: discovery.choices, store: SQLiteScannerOverrides(database: database), logger: logger)
            }
            // The gateway's access tokens, held in memory from the start (AccessTokens).
            let tokens = try AccessTokens(
                repository: SQLiteAccessTokens(database: database), limits: settings.tokenLimits, logger: logger)
            return (journal, database, scanners, tokens)
        }
        // One catalog for lookups and the shop's replica: its key filter and cache are in memory.
        let catalog = SQLiteProductRepository(database: database)
        let local = Repositories.sqlite(database, catalog: catalog)
        let replica = SQLiteShopReplica(database: database, catalog: catalog)
        let sharedStore = sharedStore(journal: journal, doorbell: committed, replica: replica)
        // Written here alone from now on, this counter's data is its own again, and waits for
        // `store.migrate` when the shop's store comes back.
        if sharedStore == nil { try await replica.forget() }
        let (handlers, checks, domain) = try BuiltinPlugins.domain(
            repositories: sharedStore.map { $0.repositories(over: local) } ?? local, settings: settings,
            metrics: scanMetrics, logger: logger)
        let bridge = Bridge(
            journal: journal, publisher: publisher,
            router: Router(
                handlers: handlers, checks: checks, logger: logger, metrics: scanMetrics,
                offline: { sharedStore?.isOffline ?? false }),
            normalizer: Normalizer(catalog: settings.catalog), spool: ReadSpool(metrics: scanMetrics))
        let resets = DeviceResets(registry: bridge.registry, metrics: scanMetrics, logger: logger)
        if let errors = settings.autoResetAfterErrors {
            AutoReset(afterErrors: errors, resets: resets, logger: logger).watch(bridge.registry)
        }
        let services = ServerServices(
            bridge: bridge, mock: mock, drivers: drivers.map(\.name), version: ScanBridgeDaemon.version,
            limits: settings.limits, domain: domain, scanners: scanners, resets: resets, tokens: tokens,
            metrics: { [storeGauges = StoreGauges(factory: metrics.factory)] in
                storeGauges.record(sharedStore?.status ?? .local)
                return metrics.exposition()
            }, serverMetrics: ServerMetrics(factory: metrics.factory),
            counter: settings.counter, sharedStore: sharedStore)
        let started = self.started
        let logger = self.logger
        // Ready once the socket and every gateway listener are: a harness that learns the
        // gateway's addresses from the READY=1 message can use them at once.
        let readiness = DaemonReadiness(waitingForGateway: settings.gateway != nil) { gatewayAddresses in
            SystemdNotifier.tell(
                (["READY=1"] + gatewayAddresses.map { "SCANBRIDGE_HTTP=\($0)" }).joined(separator: "\n"))
            logger.info(
                "ready",
                metadata: [
                    "ready.ms": "\((ContinuousClock.now - started).milliseconds)",
                    "database": "\(settings.databasePath)", "journal.seq": "\(journal.latestSeq)",
                ])
        }
        let server = RPCServer(
            socketPath: settings.socketPath, socketGroup: settings.socketGroup, activated: settings.activated.unix,
            services: services,
            policy: settings.policy, logger: logger, onReady: { readiness.socketListening() })
        let driverService = DriverService(host: DriverHost(drivers: drivers, bridge: bridge, logger: logger))
        var serviceList: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: driverService),
            .init(service: server),
            .init(service: MemoryTrimmer()),
        ]
        if let gateway = settings.gateway {
            serviceList.append(
                .init(
                    service: Gateway(
                        settings: gateway, services: services, logger: logger, activated: settings.activated.tcp,
                        readiness: {
                            var reasons: [String] = []
                            if bridge.spool.isFailing { reasons.append("the journal cannot be written") }
                            if !driverService.hasStarted { reasons.append("the drivers have not started yet") }
                            return reasons
                        },
                        onListening: { readiness.gatewayListening(on: $0.map(\.description)) })))
        }
        if let sharedStore { serviceList.append(.init(service: sharedStore)) }
        if let watchdog = watchdog(journal: journal) { serviceList.append(.init(service: watchdog)) }
        var configuration = ServiceGroupConfiguration(
            services: serviceList,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        // docs/protocol.md: SIGTERM stops the daemon within 2 s.
        configuration.maximumGracefulShutdownDuration = .milliseconds(1500)
        configuration.maximumCancellationDuration = .milliseconds(400)
        let group = ServiceGroup(configuration: configuration)
        try await group.run()
        logger.info("stopped")
    }
}

/// Runs the drivers until graceful shutdown.
final class DriverService: Service {
    let host: DriverHost
    private let started = Atomic(false)

    init(host: DriverHost) {
        self.host = host
    }

    /// The drivers were started (each then finds its devices, or says why it cannot).
    var hasStarted: Bool { started.load(ordering: .acquiring) }

    func run() async throws {
        started.store(true, ordering: .releasing)
        await cancelWhenGracefulShutdown {
            await self.host.run()
        }
    }
}

extension Duration {
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
