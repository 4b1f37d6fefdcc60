package import Logging
import PostgresNIO
package import ScanBridgeCore
import ScanBridgeModel
import ServiceLifecycle

/// The shop's PostgreSQL database, as one counter's daemon uses it: its schema kept current,
/// this counter's events copied to it, and its catalog, cards, customers and orders copied from it. Nothing a
/// scan waits for goes through here; while the database cannot be reached the daemon goes
/// on, and this catches up when it returns.
package final class SharedStore: Service, SharedStoreControl {
    package let location: SharedStoreLocation
    package let copier: EventCopier
    private let pool: StorePool
    let logger: Logger
    let shopReplica: ShopReplica
    private let writes: SharedWrites
    let timing: SharedStoreTiming
    let retention: SharedStoreRetention

    /// - Parameters:
    ///   - doorbell: rung by the journal on every commit.
    ///   - replica: this counter's copy of the shop's catalog, cards and customers.
    package init(
        location: SharedStoreLocation, counter: String, journal: any Journal, doorbell: Doorbell,
        replica: any ShopReplicaStore, timing: SharedStoreTiming = SharedStoreTiming(),
        retention: SharedStoreRetention = SharedStoreRetention(), logger: Logger
    ) {
        self.location = location
        self.logger = logger
        self.timing = timing
        self.retention = retention
        self.copier = EventCopier(journal: journal, counter: counter, doorbell: doorbell)
        let pool = StorePool(configuration: Self.configuration(location, timing), logger: logger)
        self.pool = pool
        let cards = SharedCards(
            pool: pool, logger: logger, limit: timing.answerLimit, schema: SchemaKeeper(role: location.user, logger: logger))
        let shopReplica = ShopReplica(shared: cards, replica: replica, logger: logger)
        self.shopReplica = shopReplica
        let copier = self.copier
        self.writes = SharedWrites(
            cards: cards, replica: shopReplica, location: location, isOffline: { copier.failedLastTime })
    }

    /// The repositories with the shop's catalog, cards and customers in place of this counter's own.
    package func repositories(over local: Repositories) -> Repositories {
        Repositories(
            products: SharedProductRepository(local: local.products, writes: writes, shared: shopReplica.products),
            cards: SharedCardRepository(local: local.cards, writes: writes, counter: copier.counter, logger: logger),
            customers: SharedCustomerRepository(local: local.customers, writes: writes),
            orders: SharedOrderRepository(local: local.orders, writes: writes, shared: shopReplica.orders))
    }

    package var status: StoreStatus {
        var status = copier.status
        status.problem = shopReplica.shared.schema.problem ?? shopReplica.problem
        status.refusedRows = shopReplica.refusedRows
        return status
    }

    package var isOffline: Bool { copier.status.state == .offline }

    package func eraseCustomer(walletAddress: String) async throws -> Int {
        do {
            return try await copier.eraseCustomer(
                walletAddress: walletAddress, pool: pool, logger: logger, answerLimit: .seconds(30))
        } catch {
            throw ScanBridgeError.unavailable(
                "the shop's store \(location) cannot be reached (\(SharedStoreError.reason(error)))")
        }
    }

    package func moveOwnData(expecting address: String?) async throws -> MovedToSharedStore {
        if let address {
            let given: SharedStoreLocation
            do {
                given = try SharedStoreLocation(url: address)
            } catch {
                throw ScanBridgeError.invalidParams(error.description, field: "to")
            }
            guard given.endpoint == location.endpoint, given.user == location.user, given.database == location.database
            else {
                throw ScanBridgeError.invalidParams(
                    "this daemon uses the shop's store \(location), not \(given): set store.url to the store to move to "
                        + "and restart the daemon first", field: "to")
            }
        }
        do {
            return try await shopReplica.moveHeld()
        } catch {
            let error = SharedStoreError.unwrapped(error)
            if let error = error as? ScanBridgeError { throw error }
            if let state = SharedStoreError.sqlState(error), state.hasPrefix("23") {
                throw ScanBridgeError.conflict(
                    "the shop's store holds something of this counter's under another id (a product's GTIN or SKU, "
                        + "an order's reference or a device), or refuses it; nothing was moved: "
                        + SharedStoreError.reason(error))
            }
            throw ScanBridgeError.unavailable(
                "the shop's store \(location) cannot be reached (\(SharedStoreError.reason(error))); nothing was moved")
        }
    }

    package func run() async throws {
        let (pool, copier, shopReplica, logger, timing, schema) = (
            self.pool, self.copier, self.shopReplica, self.logger, self.timing, self.shopReplica.shared.schema
        )
        logger.info(
            "using the shop's store",
            metadata: [
                "store": "\(location)", "counter": "\(copier.counter)",
                "store.tls": "\(location.usesTLS ? location.tlsMode.rawValue : "none")",
            ])
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await pool.run() }
                group.addTask { await self.keepSmall() }
                // Each ends when cancelled, at shutdown.
                group.addTask {
                    await shopReplica.run(backoff: timing.backoff, liveness: timing.idleCheck) { copier.lost(logger: logger) }
                }
                group.addTask {
                    await copier.run(
                        pool: pool, logger: logger, idleCheck: timing.idleCheck, answerLimit: timing.answerLimit,
                        backoff: timing.backoff
                    ) { connection in
                        try await schema.ensure(connection)
                    }
                }
            }
        }
    }

    /// TLS as `sslmode` asks: past `prefer`, a server that does not offer TLS is not spoken to.
    private static func tls(_ location: SharedStoreLocation) -> PostgresClient.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = location.rootCertificate { tls.trustRoots = .file(roots) }
        switch location.tlsMode {
        case .disable: return .disable
        case .prefer:
            tls.certificateVerification = .none
            return .prefer(tls)
        case .require:
            tls.certificateVerification = .none
        case .verifyCA:
            tls.certificateVerification = .noHostnameVerification
        case .verifyFull:
            tls.certificateVerification = .fullVerification
        }
        return .require(tls)
    }

    static func configuration(_ location: SharedStoreLocation, _ timing: SharedStoreTiming)
        -> PostgresClient.Configuration
    {
        var configuration: PostgresClient.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: location.user, password: location.password,
                database: location.database, tls: tls(location))
        case .unixSocket(let path, _):
            configuration = PostgresClient.Configuration(
                unixSocketPath: path, username: location.user, password: location.password, database: location.database)
        }
        // A counter needs few connections: the copy, the change feed, and writes.
        configuration.options.maximumConnections = 4
        configuration.options.connectTimeout = min(.seconds(5), timing.answerLimit)
        // The server ends what takes longer than the daemon would wait, rather than go on
        // with it after the daemon has given up and closed the connection.
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "60s"), ("idle_in_transaction_session_timeout", "60s"),
        ]
        return configuration
    }
}
