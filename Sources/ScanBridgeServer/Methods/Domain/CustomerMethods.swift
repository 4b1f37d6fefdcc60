import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `customers.get`, `customers.upsert`.
enum CustomerMethods {
    static let all: [String: RPCMethod] = [
        "customers.get": { params, connection in
            let wallet = try params.walletAddress("walletAddress")
            guard
                let customer = try await DomainMethod.services(connection).repositories.customers.customer(walletAddress: wallet)
            else {
                throw ScanBridgeError.notFound(
                    "no customer with wallet \(wallet); linking a card creates one, or use customers.upsert")
            }
            return MethodOutcome(.object([("customer", .value(customer.wire))]))
        },
        "customers.upsert": { params, connection in
            guard let fields = try params.object("customer") else {
                throw ScanBridgeError.invalidParams("customer is required", field: "customer")
            }
            let customer = try Customer(input: fields, now: Date())
            let stored = try await DomainMethod.services(connection).repositories.customers.upsert(customer)
            return MethodOutcome(.object([("customer", .value(stored.wire))]))
        },
    ]
}
