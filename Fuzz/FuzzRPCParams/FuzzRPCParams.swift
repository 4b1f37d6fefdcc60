import Foundation
import FuzzSupport
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

@testable import ScanBridgeServer

/// A request's params once the JSON parser has made a value of them, read as the dispatcher
/// and each method read them: `products.*` (one product or a batch, through
/// `Product(input:)`), `orders.upsert`, `customers.*`, `cards.*`, `tokens.*` (with the checks
/// of a token's name, origins and expiry), `handlers.register`, `events.*`, every method on
/// every input. Any value gives params or an `invalidParams` error naming its field, never a
/// crash; what is read holds to its bounds.
enum FuzzRPCParams: FuzzTarget {
    /// A fixed now, so that an input always reads the same.
    private static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let value = try? JSONValue(parsing: bytes) else { return }
        // The dispatcher takes no params and null as none, and refuses anything but an object.
        let params: Params
        do {
            params = try Params(value)
        } catch {
            check("params", error)
            return
        }
        read("products.lookup") { _ = try params.requiredText("code", maxLength: 8192) }
        read("products.upsert") {
            let catalog = CatalogSettings(storeId: "shop-1", currency: "EUR", region: .de)
            let products = try DomainMethod.oneOrMany(params, single: "product", plural: "products") {
                fields throws(ScanBridgeError) in try Product(input: fields, settings: catalog)
            }
            for product in products {
                fuzzCheck(!product.id.isEmpty && product.id.count <= 128, "a product id of \(product.id.count) characters")
                let price = product.price
                fuzzCheck(
                    (0...Money.maxMinorUnits(in: price.currency)).contains(price.minorUnits),
                    "a price of \(price.minorUnits) \(price.currency)")
                // What the wire answers reads back as the same amount.
                fuzzCheck(
                    (try? Money.parseAmount(price.amount, currency: price.currency, field: "price")) == price.minorUnits,
                    "the price \(price.amount) \(price.currency) reads back as another amount")
                if let gtin = product.gtin { fuzzCheck(GTIN.gtin14(gtin) == gtin, "a product's GTIN '\(gtin)'") }
            }
        }
        read("products.delete") { _ = try params.requiredText("id", maxLength: 128) }
        read("orders.upsert") {
            let orders = try DomainMethod.oneOrMany(params, single: "order", plural: "orders") {
                fields throws(ScanBridgeError) in try RepairOrder(input: fields, now: now)
            }
            for order in orders { fuzzCheck(order.devices.allSatisfy { $0.orderId == order.id }, "a device of another order") }
        }
        read("customers.upsert") {
            guard let fields = try params.object("customer") else {
                throw ScanBridgeError.invalidParams("customer is required", field: "customer")
            }
            _ = try Customer(input: fields, now: now)
        }
        read("customers.get") { _ = try params.walletAddress("walletAddress") }
        read("cards.link") {
            let uid = try params.uid("uid")
            fuzzCheck(NFCUID.validLengths.contains(uid.bytes.count), "a UID of \(uid.bytes.count) bytes")
            _ = try params.walletAddress("walletAddress")
            _ = try params.text("cardName")
        }
        read("cards.arm") {
            _ = try params.walletAddress("walletAddress")
            _ = try params.text("device", maxLength: 256)
            _ = try params.integer("timeoutMs", in: 100...600_000)
            _ = try params.text("cardName")
        }
        read("cards.disarm") { _ = try params.requiredString("armed") }
        read("cards.list") { _ = try params.has("walletAddress") ? params.walletAddress("walletAddress") : nil }
        read("cards.setStatus") {
            _ = try params.uid("uid")
            guard try params.cardStatus("status") != nil else {
                throw ScanBridgeError.invalidParams("status is required: active, inactive or blocked", field: "status")
            }
        }
        read("tokens.create") {
            let name = try params.requiredString("name")
            let roleName = try params.requiredString("role")
            guard Role.named(roleName) != nil else {
                throw ScanBridgeError.invalidParams("role must be reader, operator or admin", field: "role")
            }
            let limits = AccessTokens.Limits()
            let checked = try AccessTokens.checkedName(name, limits: limits)
            fuzzCheck(!checked.isEmpty && checked.utf8.count <= limits.nameBytes, "a token name of \(checked.utf8.count) bytes")
            let origins = try AccessTokens.checkedOrigins(try params.strings("origins") ?? [], limits: limits)
            fuzzCheck(Set(origins).count == origins.count && origins.count <= limits.origins, "token origins \(origins)")
            for origin in origins {
                fuzzCheck((try? TokenOrigin.normalized(origin)) == origin, "a token origin '\(origin)' not in its normal form")
            }
            // Without a longest lifetime, the default, a token may never expire.
            let expiresAt = try params.time("expiresAt")
            if case .success(let expiry) = Result(catching: { try AccessTokens.checkedExpiry(expiresAt, at: now, limits: limits) }
            ) {
                fuzzCheck(expiry.map { $0 > now } ?? (expiresAt == nil), "a token that expires at \(String(describing: expiry))")
            }
            // With one set, as a shop may: every token then expires, after now.
            var lifetime = limits
            lifetime.maxLifetimeDays = 90
            let expiry = try AccessTokens.checkedExpiry(expiresAt, at: now, limits: lifetime)
            fuzzCheck(expiry.map { $0 > now } ?? false, "a token that expires at \(String(describing: expiry))")
        }
        read("tokens.revoke") { _ = try params.requiredString("id") }
        read("handlers.register") {
            _ = try params.requiredText("name", maxLength: 64)
            let match = try params.object("match")
            _ = try match?.strings("symbologies")
            if let text = try match?.string("pattern") {
                do {
                    _ = try TextPattern(text, matching: .anywhere)
                } catch {
                    throw ScanBridgeError.invalidParams("match.pattern: \(error)", field: "match.pattern")
                }
            }
            _ = try match?.kinds("kinds")
            _ = try params.integer("priority", in: -1000...1000)
        }
        read("events.subscribe") {
            _ = try params.kinds("kinds")
            _ = try params.strings("devices")
            _ = try params.integer("since", in: 0...Int64.max).map(UInt64.init)
        }
        read("events.recent") {
            _ = try params.integer("limit", in: 1...1000)
            _ = try params.kinds("kinds")
        }
    }

    /// Reads params as `method` does: it gets what it reads, or an error that says which field is wrong.
    private static func read(_ method: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            check(method, error)
        }
    }

    private static func check(_ method: String, _ error: any Error) {
        guard let error = error as? ScanBridgeError else { return fuzzCheck(false, "\(method): \(error) is no ScanBridgeError") }
        fuzzCheck(
            error.code == .invalidParams && error.field?.isEmpty == false,
            "\(method): \(error.code) naming no field: \(error.message)")
    }
}
