import Logging
import PostgresNIO
import ScanBridgeCore
import ScanBridgeModel
import ServiceLifecycle

/// The shop's PostgreSQL database, as one counter's daemon uses it: its schema kept current
/// and this counter's events copied to it. Nothing a scan waits for goes through here; while
/// the database cannot be reached the daemon goes on, and this catches up when it returns.
package final class SharedStore: Service, SharedEventCopies {
    package let location: SharedStoreLocation
    package let copier: EventCopier
    private let client: PostgresClient
    private let logger: Logger

    /// - Parameter doorbell: rung by the journal on every commit.
    package init(
        location: SharedStoreLocation, counter: String, journal: any Journal, doorbell: Doorbell, logger: Logger
    ) {
        self.location = location
        self.logger = logger
        self.copier = EventCopier(journal: journal, counter: counter, doorbell: doorbell)
        self.client = PostgresClient(configuration: Self.configuration(location), backgroundLogger: logger)
    }

    package var status: StoreStatus { copier.status }

    package func eraseCustomer(walletAddress: String) async throws -> Int {
        do {
            return try await copier.eraseCustomer(
                walletAddress: walletAddress, client: client, logger: logger, answerLimit: .seconds(30))
        } catch {
            throw ScanBridgeError.unavailable(
                "the shop's store \(location) cannot be reached (\(SharedStoreError.reason(error)))")
        }
    }

    package func run() async throws {
        let (client, copier, logger) = (self.client, self.copier, self.logger)
        logger.info("using the shop's store", metadata: ["store": "\(location)", "counter": "\(copier.counter)"])
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                // Both end when cancelled, at shutdown.
                group.addTask {
                    await copier.run(client: client, logger: logger) { connection in
                        let applied = try await SharedSchema.migrate(connection, logger: logger)
                        if !applied.isEmpty {
                            logger.notice("migrated the shop's store", metadata: ["versions": "\(applied)"])
                        }
                    }
                }
            }
        }
    }

    private static func configuration(_ location: SharedStoreLocation) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            // TLS when the server offers it, as libpq's default `sslmode=prefer` does.
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: location.user, password: location.password,
                database: location.database, tls: .prefer(.makeClientConfiguration()))
        case .unixSocket(let path, _):
            configuration = PostgresClient.Configuration(
                unixSocketPath: path, username: location.user, password: location.password, database: location.database)
        }
        // A counter needs few connections: the copy, and later the change feed and writes.
        configuration.options.maximumConnections = 4
        configuration.options.connectTimeout = .seconds(5)
        // The server ends what takes longer than the daemon would wait, rather than go on
        // with it after the daemon has given up and closed the connection.
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "60s"), ("idle_in_transaction_session_timeout", "60s"),
        ]
        return configuration
    }
}
