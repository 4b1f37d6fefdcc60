import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `bridge.hello`: who the daemon is and what the caller may do.
enum BridgeMethods {
    static let all: [String: RPCMethod] = [
        "bridge.hello": { params, connection in
            if let client = params.members["client"]?.objectValue {
                connection.logger.info(
                    "client said hello",
                    metadata: [
                        "client.name": "\(client["name"]?.stringValue ?? "?")",
                        "client.version": "\(client["version"]?.stringValue ?? "?")",
                    ])
            }
            let services = connection.services
            let journal = await services.bridge.journal.health()
            let store = services.sharedStore?.status ?? .local
            return MethodOutcome(
                .object([
                    ("name", .string("scanbridge")),
                    ("version", .string(services.version)),
                    ("protocol", .int(1)),
                    ("role", .string(connection.role.description)),
                    ("drivers", .array(services.drivers.map(Payload.string))),
                    ("handlers", .array(services.bridge.router.handlerNames.map(Payload.string))),
                    (
                        "journal",
                        .object([
                            ("walBytes", .int(Int(journal.walBytes))),
                            ("pruneFailures", .int(journal.pruneFailures)),
                            ("checkpointFailures", .int(journal.checkpointFailures)),
                            ("spooled", .int(services.bridge.spool.count)),
                        ])
                    ),
                    ("counter", .string(services.counter)),
                    (
                        "store",
                        .object(
                            [
                                ("kind", .string(store.kind.rawValue)), ("state", .string(store.state.rawValue)),
                                ("copyLag", .int(Int(clamping: store.copyLag))),
                            ] + (store.problem.map { [("problem", Payload.string($0))] } ?? []))
                    ),
                ]))
        }
    ]
}
