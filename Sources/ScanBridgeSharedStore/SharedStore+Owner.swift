import PostgresNIO
import ScanBridgeModel

extension SharedStore {
    package func migrateSchema(owner address: String, password: String?) async throws -> [Int] {
        var owner: SharedStoreLocation
        do {
            owner = try SharedStoreLocation(url: address).withRootCertificate(location.rootCertificate)
            owner.password = password
            owner = try owner.refusingPasswordInClear()
        } catch {
            throw ScanBridgeError.invalidParams(error.description, field: "owner")
        }
        // The owner's password crosses the network no less protected than the counter's.
        let strength: [SharedStoreLocation.TLSMode] = [.disable, .prefer, .require, .verifyCA, .verifyFull]
        guard strength.firstIndex(of: owner.tlsMode) ?? 0 >= strength.firstIndex(of: location.tlsMode) ?? 0 else {
            throw ScanBridgeError.invalidParams(
                "owner asks for sslmode=\(owner.tlsMode.rawValue), weaker than the store's \(location.tlsMode.rawValue)",
                field: "owner")
        }
        guard owner.endpoint == location.endpoint, owner.database == location.database else {
            throw ScanBridgeError.invalidParams(
                "owner must name the store this daemon uses, \(location), with the role that owns its tables; not \(owner)",
                field: "owner")
        }
        let (counter, ownerRole, logger) = (location.user, owner.user, self.logger)
        let client = PostgresClient(configuration: Self.configuration(owner, timing), backgroundLogger: logger)
        let running = Task { await client.run() }
        defer { running.cancel() }
        let applied: [Int]
        do {
            applied = try await client.withConnection("the schema's migration", within: .seconds(600)) { connection in
                let applied = try await SharedSchema.migrate(connection, logger: logger)
                for role in [counter, SharedSchema.counterRole] where role != ownerRole {
                    if try await SharedSchema.roleExists(role, on: connection, logger: logger) {
                        try await SharedSchema.grant(to: role, on: connection, logger: logger)
                    }
                }
                return applied
            }
        } catch {
            if SharedStoreError.sqlState(error) == SchemaKeeper.insufficientPrivilege {
                throw ScanBridgeError.invalidParams(
                    "the role \(owner.user) may not change the shop's tables either (\(SharedStoreError.reason(error))): "
                        + "name the role that owns them", field: "owner")
            }
            throw ScanBridgeError.unavailable(
                "the shop's store \(owner) cannot be migrated (\(SharedStoreError.reason(error)))")
        }
        shopReplica.shared.schema.settled()
        // The copy, which waited for the schema, reaches the store at its next try: a move
        // asked for with the migration then finds it there.
        await shopReplica.waitUntilKnown(within: .seconds(30))
        logger.notice(
            "migrated the shop's store as its owner",
            metadata: ["owner": "\(owner.user)", "versions": "\(applied)", "granted": "\(counter)"])
        return applied
    }
}
