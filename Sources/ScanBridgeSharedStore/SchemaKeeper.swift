import Logging
import PostgresNIO
import Synchronization

/// Brings the shop's schema up to date once per daemon, before its first use of the store,
/// and says what to do when this daemon's role may not: a counter's role has the rows, not
/// the tables, and the tables' owner migrates them (`scanbridge store migrate --owner`).
final class SchemaKeeper: Sendable {
    /// The role this daemon uses, named in what to do.
    let role: String
    let logger: Logger
    private let state = Mutex<(current: Bool, problem: String?)>((false, nil))

    init(role: String, logger: Logger) {
        self.role = role
        self.logger = logger
    }

    /// Why the store cannot be used until someone acts; nil while it can.
    var problem: String? { state.withLock { $0.problem } }

    /// Migrates the schema on `connection` unless done since the daemon started.
    func ensure(_ connection: PostgresConnection) async throws {
        guard !state.withLock({ $0.current }) else { return }
        do {
            let applied = try await SharedSchema.migrate(connection, logger: logger)
            if !applied.isEmpty { logger.notice("migrated the shop's store", metadata: ["versions": "\(applied)"]) }
            settled()
        } catch  where SharedStoreError.sqlState(error) == Self.insufficientPrivilege {
            let found = (try? await SharedSchema.version(connection, logger: logger)) ?? 0
            let problem =
                "the shop's store has schema version \(found) and this daemon needs \(SharedSchema.latestVersion); "
                + "its role \(role) may not change the tables, as a counter's role should not: migrate them once with "
                + "the role that owns them, 'scanbridge store migrate --owner postgresql://OWNER@HOST/DATABASE'"
            say(problem)
            throw NeedsOwner(description: problem)
        } catch let newer as SharedSchema.NewerSchema {
            say(newer.description)
            throw newer
        } catch  where SharedStoreError.sqlState(error) != nil {
            // The server answered and refused a migration (one that names what to mend first).
            say("the shop's store cannot be migrated: \(SharedStoreError.reason(error))")
            throw error
        }
    }

    /// Keeps `problem` for `store.problem`, logged once.
    private func say(_ problem: String) {
        let said = state.withLock { state in
            defer { state.problem = problem }
            return state.problem == problem
        }
        if !said { logger.error("\(problem)") }
    }

    /// The schema is current: by this daemon, or by its owner through it.
    func settled() {
        state.withLock { $0 = (true, nil) }
    }

    /// PostgreSQL's SQLSTATE for a privilege the role lacks.
    static let insufficientPrivilege = "42501"

    struct NeedsOwner: Error, CustomStringConvertible {
        let description: String
    }
}
