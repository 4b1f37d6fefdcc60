import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `customers.get`, `customers.upsert`, `customers.erase`.
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
        "customers.erase": { params, connection in
            let wallet = try params.walletAddress("walletAddress")
            let domain = try DomainMethod.services(connection)
            let shared = connection.services.sharedStore
            // The copies of the events in the shop's store must lose the data too: with that
            // store away, nothing is erased, rather than erased here and left there.
            if let shared, shared.status.state != .ok {
                throw ScanBridgeError.unavailable(
                    "the shop's store cannot be reached, and the events copied there carry this customer; "
                        + "nothing was erased: call customers.erase again when scanbridge doctor says the store is ok")
            }
            // Arms and the store first: from then on no tap resolves with this customer, so
            // the journal's rewrite that follows finds every event that carries them, and
            // the copies' rewrite after it every copy. Each step can be run again, so an
            // erase cut short is finished by repeating it.
            domain.arming.disarm(walletAddress: wallet)
            let cards = try await domain.repositories.customers.erase(walletAddress: wallet)
            let events = try await connection.services.bridge.journal.eraseCustomer(walletAddress: wallet)
            do {
                _ = try await shared?.eraseCustomer(walletAddress: wallet)
            } catch let error as ScanBridgeError {
                throw ScanBridgeError.unavailable(
                    "\(error.message); the customer is erased from this counter, not yet from the events copied "
                        + "to the shop's store: call customers.erase again when it is back")
            }
            return MethodOutcome(
                .object([("erased", .value(true)), ("cardsUnlinked", .int(cards)), ("eventsRewritten", .int(events))]))
        },
    ]
}
