import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `orders.lookup`, `orders.upsert`.
enum OrderMethods {
    static let all: [String: RPCMethod] = [
        "orders.lookup": { params, connection in
            let code = try params.requiredText("code", maxLength: 8192)
            let resolution = try await DomainMethod.services(connection).orderLookup.lookup(code: code)
            return MethodOutcome(DomainMethod.lookupResult(resolution))
        },
        "orders.upsert": { params, connection in
            let domain = try DomainMethod.services(connection)
            let now = Date()
            let inputs = try DomainMethod.oneOrMany(params, single: "order", plural: "orders") { fields throws(ScanBridgeError) in
                (order: try RepairOrder(input: fields, now: now), hasDevices: fields.has("devices"))
            }
            // An order given without `devices` keeps its stored ones: re-importing a list of
            // tickets does not drop their devices. (Its `createdAt` is kept by the store.)
            let keeping = Set(inputs.filter { !$0.hasDevices }.map(\.order.id))
            let stored = try await DomainMethod.batch(single: "order", plural: "orders", isBatch: params.has("orders")) {
                try await domain.repositories.orders.upsert(inputs.map(\.order), keepingDevices: keeping)
            }
            return MethodOutcome(DomainMethod.wires("orders", stored.map(\.wire)))
        },
    ]
}
