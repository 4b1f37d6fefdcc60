import Logging
import PostgresNIO
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// The bytes a row read from the shop's store may hold, checked in SQL before any of it is
/// read: a row past them (a name of any length a compromised counter wrote) never reaches this
/// counter's memory, and its key, cut short, is all that is read of it. Each text column's
/// bound is the bytes of the characters a client may give there (`JSONFields.maxBytes`);
/// the row then passes the input checks themselves (`inputProblem`).
struct ShopRowBounds: Sendable {
    let table: String
    let key: String
    /// Each bounded column with the characters a client may give there.
    let columns: [(name: String, characters: Int)]

    /// SQL that is true when every bounded column of the row fits.
    var fits: String {
        columns.map { "coalesce(octet_length(\($0.name)), 0) <= \(JSONFields.maxBytes(ofCharacters: $0.characters))" }
            .joined(separator: " AND ")
    }

    /// SQL naming the first column of the row that does not fit.
    var tooLong: String {
        "CASE "
            + columns.map {
                "WHEN octet_length(\($0.name)) > \(JSONFields.maxBytes(ofCharacters: $0.characters)) THEN '\($0.name)'"
            }.joined(separator: " ") + " END"
    }

    /// The most bytes one row can hold within the bounds, its other columns included.
    var maxBytes: Int { columns.reduce(256) { $0 + JSONFields.maxBytes(ofCharacters: $1.characters) } }

    static let products = ShopRowBounds(
        table: "scanbridge_products", key: "id",
        columns: [
            ("id", 128), ("store_id", Product.storeIdMaxLength), ("name", 256), ("currency", 3), ("sku", 64),
            ("category", 256), ("barcode", 64), ("gtin", 14), ("parent_id", 128), ("variant", 256),
        ])
    static let customers = ShopRowBounds(
        table: "scanbridge_customers", key: "wallet_address",
        columns: [("wallet_address", 128), ("name", 256), ("email", 256), ("phone", 32)])
    static let cards = ShopRowBounds(
        table: "scanbridge_cards", key: "uid",
        columns: [("uid", 20), ("wallet_address", 128), ("card_name", 256), ("status", 8), ("security", 8)])
    static let orders = ShopRowBounds(
        table: "scanbridge_orders", key: "id",
        columns: [("id", 128), ("reference", 64), ("status", 32), ("client_id", 128), ("client_name", 256)])
    static let devices = ShopRowBounds(
        table: "scanbridge_order_devices", key: "order_id",
        columns: [("id", 128), ("order_id", 128), ("make", 256), ("model", 256), ("serial", 64), ("status", 32)])

    /// The most bytes one order can hold, its devices included.
    static var maxOrderBytes: Int { orders.maxBytes + RepairOrder.maxDevices * devices.maxBytes }
}

extension ShopTable {
    /// The table a change of the shop's log names, by its name there: a device's change is
    /// its order's. Nil for a name no followed table has.
    init?(logged name: String) {
        switch name {
        case ShopRowBounds.customers.table: self = .customers
        case ShopRowBounds.cards.table: self = .cards
        case ShopRowBounds.products.table: self = .products
        case ShopRowBounds.orders.table, ShopRowBounds.devices.table: self = .orders
        default: return nil
        }
    }

    /// The bounds of its rows, with its name and key in the shop's store.
    var bounds: ShopRowBounds {
        switch self {
        case .customers: .customers
        case .cards: .cards
        case .products: .products
        case .orders: .orders
        }
    }

    /// The most bytes one of its rows can bring into a page, what comes with it included (a
    /// card's customer, an order's devices).
    var maxRowBytes: Int {
        switch self {
        case .customers, .products: bounds.maxBytes
        case .cards: bounds.maxBytes + ShopRowBounds.customers.maxBytes
        case .orders: ShopRowBounds.maxOrderBytes
        }
    }
}

/// A row of the shop's store that this counter leaves out of its copy, and why.
struct RefusedRow: Sendable, Hashable, CustomStringConvertible {
    let table: String
    /// The row's key, cut to `ShopRowBounds.shownKey` characters.
    let key: String
    let reason: String

    var description: String { "\(table) \(key): \(reason)" }
}

extension ShopRowBounds {
    /// Of the rows of `keys` (themselves within bounds), those that do not fit, each with
    /// the first column that does not; nothing else of them is read.
    func refused(among keys: some Collection<String>, on connection: PostgresConnection, logger: Logger) async throws
        -> [RefusedRow]
    {
        guard !keys.isEmpty else { return [] }
        var refused: [RefusedRow] = []
        for try await (key, column) in try await connection.query(
            """
            SELECT DISTINCT \(unescaped: key), \(unescaped: tooLong) FROM \(unescaped: table)
            WHERE \(unescaped: key) = ANY(\(Array(keys))) AND NOT (\(unescaped: fits))
            """, logger: logger
        ).decode((String, String).self) {
            let bound = columns.first { $0.name == column }.map { JSONFields.maxBytes(ofCharacters: $0.characters) } ?? 0
            refused.append(RefusedRow(table: table, key: key, reason: "its \(column) is longer than \(bound) bytes"))
        }
        return refused
    }
}

/// Rows read from the shop's store: those this counter can use, and those it leaves out.
struct ShopRows<Row: Sendable>: Sendable {
    var rows: [Row] = []
    var refused: [RefusedRow] = []
}

/// The rows of the shop's store a counter's copy leaves out now: each until a later change
/// to it is applied. Bounded, whatever the shop holds: past `kept` rows only a count grows.
struct RefusedRows: Sendable {
    /// Rows kept by name.
    static let kept = 1000
    /// Rows named in `summary`.
    static let shown = 5

    private var rows: [String: RefusedRow] = [:]
    /// Rows refused once `rows` was full, never named.
    private var unnamed = 0

    var count: Int { rows.count + unnamed }

    /// Forgets the rows `batch` put or took for gone, and adds `refused`.
    mutating func update(applied batch: ReplicaBatch, refused: [RefusedRow]) {
        if !rows.isEmpty {
            // Table by table: as one sum of the four, Swift 6.2's type checker gives up on it.
            let products: [String] =
                (batch.products.map(\.product.id) + batch.goneProducts).map { "\(ShopRowBounds.products.table) \($0)" }
            let cards: [String] = (batch.cards.map(\.uid.hex) + batch.goneCards).map { "\(ShopRowBounds.cards.table) \($0)" }
            let customers: [String] = (batch.customers.map(\.walletAddress) + batch.goneCustomers).map {
                "\(ShopRowBounds.customers.table) \($0)"
            }
            let orders: [String] = (batch.orders.map(\.id) + batch.goneOrders).map { "\(ShopRowBounds.orders.table) \($0)" }
            for key in products + cards + customers + orders { rows[key] = nil }
        }
        for row in refused {
            let key = "\(row.table) \(row.key)"
            if rows[key] != nil || rows.count < Self.kept {
                rows[key] = row
            } else {
                unnamed += 1
            }
        }
    }

    /// What `problem` says of them; nil when there are none.
    var summary: String? {
        guard count > 0 else { return nil }
        let named = rows.values.sorted { ($0.table, $0.key) < ($1.table, $1.key) }.prefix(Self.shown)
        return "\(count) row\(count == 1 ? "" : "s") of the shop's store \(count == 1 ? "is" : "are") left out of this "
            + "counter's copy, as no client could have given \(count == 1 ? "it" : "them") here: "
            + named.map(\.description).joined(separator: "; ") + (count > named.count ? "; …" : "")
            + " (the log names each); a later change that mends a row brings it in"
    }
}
