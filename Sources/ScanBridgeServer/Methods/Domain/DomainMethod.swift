import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// Helpers shared by the domain methods (`products.*`, `cards.*`, `customers.*`, `orders.*`).
enum DomainMethod {
    /// The domain services, or `unavailable` when this server runs without a store.
    static func services(_ connection: Connection) throws -> DomainServices {
        guard let domain = connection.services.domain else {
            throw ScanBridgeError.unavailable("this daemon runs without its catalog and card store")
        }
        return domain
    }

    /// A lookup's answer: the resolution a scan of the same code would get, without `handler`.
    static func lookupResult(_ resolution: Resolution) -> Payload {
        var out = JSONOutput()
        resolution.write(to: &out, includingHandler: false)
        return .raw(out.bytes)
    }

    /// The elements of a `{"product": …}` or `{"products": [...]}` request, read by `read`.
    /// A batch's errors name the element (`products[3].price`).
    static func oneOrMany<T>(
        _ params: Params, single: String, plural: String, read: (JSONFields) throws(ScanBridgeError) -> T
    ) throws -> [T] {
        if let many = try params.objects(plural) {
            guard !params.has(single) else {
                throw ScanBridgeError.invalidParams("give \(single) or \(plural), not both", field: single)
            }
            return try many.map { fields throws(ScanBridgeError) in try read(fields) }
        }
        guard let one = try params.object(single) else {
            throw ScanBridgeError.invalidParams("\(single) (one object) or \(plural) (an array) is required", field: single)
        }
        return [try read(one)]
    }

    /// Runs a batch write; a repository error about element `[i]` is reported under the
    /// request's own name for it (`products[3].barcode`, or `product.barcode` for one).
    static func batch<T: Sendable>(
        single: String, plural: String, isBatch: Bool, _ write: () async throws -> T
    ) async throws -> T {
        do {
            return try await write()
        } catch var error as ScanBridgeError {
            if let field = error.field, field.hasPrefix("[") {
                if isBatch {
                    error.field = plural + field
                } else if let close = field.firstIndex(of: "]") {
                    error.field = single + field[field.index(after: close)...]
                }
            }
            throw error
        }
    }

    static func wires(_ key: String, _ values: [JSONValue]) -> Payload {
        .object([(key, .value(.array(values)))])
    }
}
