package import ScanBridgeCore
package import ScanBridgeModel

/// Finds the repair order (and device) a code names, the same way for a scan
/// (`order-lookup` resolution) and a typed code (`orders.lookup`).
package struct OrderLookup: CodeLookup {
    let orders: any OrderRepository
    /// Which plain texts on a scanned label are order references (typed lookups take any).
    let references: TextPattern

    /// Repair Minder's references by default: `RM-1001`, `rm1001`.
    package static let defaultReferencePattern = "(?i)RM-?[0-9]+"

    /// `referencePattern`: a POSIX extended regular expression (`TextPattern`).
    package init(orders: any OrderRepository, referencePattern: String = Self.defaultReferencePattern) throws {
        self.orders = orders
        self.references = try TextPattern(referencePattern)
    }

    package func classify(scanned text: String) -> OrderCode? {
        OrderCode.parse(text, references: references)
    }

    package func lookup(code: String) async throws -> Resolution {
        guard let orderCode = OrderCode.parse(code, references: nil) else {
            return Resolution(
                handler: nil, status: "invalid",
                details: [
                    "reason": .string(
                        "'\(code.prefix(80))' names no repair order: give a reference (RM-1001), ORDER:<id>, DEVICE:<id> or an order link"
                    )
                ])
        }
        return try await resolve(orderCode)
    }

    package func resolve(_ code: OrderCode) async throws -> Resolution {
        switch code {
        case .invalid(let reason):
            return Resolution(handler: nil, status: "invalid", details: ["reason": .string(reason)])
        case .order(let key), .reference(let key):
            // ORDER:<x> names an id first, a plain label a reference first; each falls back to the other.
            var byID = true
            if case .reference = code { byID = false }
            var order = byID ? try await orders.order(id: key) : try await orders.order(reference: key)
            if order == nil { order = byID ? try await orders.order(reference: key) : try await orders.order(id: key) }
            guard let order else { return notFound("no repair order '\(key)'") }
            return Resolution(handler: nil, status: "found", details: ["order": order.wire])
        case .device(let id):
            guard let (device, order) = try await orders.device(id: id) else { return notFound("no repair device '\(id)'") }
            return Resolution(handler: nil, status: "found", details: ["order": order.wire, "device": device.wire])
        }
    }

    private func notFound(_ what: String) -> Resolution {
        Resolution(handler: nil, status: "not_found", details: ["reason": .string(what)])
    }
}
