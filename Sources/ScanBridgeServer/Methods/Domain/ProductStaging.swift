import ScanBridgeModel
import Synchronization

/// One connection's staged catalog (`products.stage`, `products.commit`): the name of its
/// area in the store, and how much it holds, so one client cannot fill the disk. The area is
/// emptied when the connection closes, so an import that stops halfway changes nothing.
final class ProductStaging: Sendable {
    /// Most products one connection may stage before it commits.
    static let maxRows = 5_000_000
    /// Most bytes of product text one connection may stage before it commits.
    static let maxBytes = 2 << 30

    /// The area's name in the store: unique among the daemon's connections.
    let area: String

    private struct Held {
        var rows = 0
        var bytes = 0
        var isUsed = false
    }

    private let held = Mutex(Held())
    /// The Unix socket and the gateway number their connections apart, so areas are numbered here.
    private static let areas = Atomic(0)

    init() {
        self.area = "area-\(Self.areas.add(1, ordering: .relaxed).newValue)"
    }

    /// Counts `products` against the bounds before they are staged.
    ///
    /// - Throws: `invalidParams` naming the bound, when staging them would pass it.
    func reserve(_ products: [Product]) throws(ScanBridgeError) {
        let bytes = products.reduce(0) { $0 + Self.bytes(of: $1) }
        let refusal = held.withLock { held -> String? in
            guard held.rows + products.count <= Self.maxRows else {
                return "more than \(Self.maxRows) products"
            }
            guard held.bytes + bytes <= Self.maxBytes else { return "more than \(Self.maxBytes >> 20) MiB of products" }
            held.rows += products.count
            held.bytes += bytes
            held.isUsed = true
            return nil
        }
        if let refusal {
            throw .invalidParams(
                "this connection has staged \(refusal): commit them (products.commit) before staging more, "
                    + "or import the catalog in parts without pruning",
                field: "products")
        }
    }

    /// The area was committed or discarded: its bounds start over.
    func reset() {
        held.withLock { $0 = Held() }
    }

    /// Whether anything was staged since the last reset.
    var isUsed: Bool { held.withLock { $0.isUsed } }

    /// What a product costs in the area: its text, and a row's fixed part.
    static func bytes(of product: Product) -> Int {
        let texts =
            [product.id, product.name, product.price.currency]
            + [product.storeId, product.sku, product.category, product.barcode, product.parentId, product.variant].compactMap {
                $0
            }
        return texts.reduce(64) { $0 + $1.utf8.count }
    }
}
