import Foundation

/// What a counter scans, by index: the reads every scenario that measures a scan injects.
///
/// The counter's mix, in every 20 reads: 16 codes that find a product (13 EAN-13s of catalog
/// items, 2 GS1-128 element strings of catalog items with a best-before date and a lot, 1
/// in-store price code), 2 taps of a linked card that identify its customer, 1 repair-order
/// QR code, and 1 label no product has. On the shop's store the catalog items are spread
/// over the whole catalog, the taps over 10,000 customers' cards, the order labels over
/// 10,000 orders and the price codes over 100 priced items and their prices
/// (`CounterPeople`), each by a fixed hash of the index, so no run is luckier than another
/// and every read is as likely to miss the page cache as a shop's. `unknownOnly` is the cheapest path a scan can
/// take (the catalog's key filter says no before any read), reported as a row of its own.
struct CounterWorkload: Sendable {
    enum Mix: Sendable, Equatable {
        case counter
        case unknownOnly
        /// Every read is the one the counter's mix makes at `slot` (its index modulo 20): what one
        /// kind of read costs, to say where the mix's time goes.
        case onlyKind(slot: Int, name: String)

        /// One mix for each kind of read that finds something but the in-store price code (one
        /// read in 20), named as the rows say it.
        static let kinds: [Mix] = [
            .onlyKind(slot: 0, name: "EAN-13s of catalog items"),
            .onlyKind(slot: 13, name: "GS1-128 element strings of catalog items"),
            .onlyKind(slot: 16, name: "taps of a linked card"),
            .onlyKind(slot: 18, name: "repair-order QR codes"),
        ]
    }

    /// What a read resolves to, as the event's `resolution` says it: `handler status`.
    enum Outcome: String, CaseIterable, Sendable {
        case product = "product-lookup found"
        case customer = "card-link identified"
        case order = "order-lookup found"
        case unknown = "product-lookup not_found"

        /// Its share of the counter's mix, in twentieths.
        var twentieths: Int {
            switch self {
            case .product: 16
            case .customer: 2
            case .order, .unknown: 1
            }
        }
    }

    /// One read: the mock device it comes from and what it reads.
    struct Read: Sendable {
        var device: String
        var text: String?
        var uid: String?
        var symbology: String?
        var outcome: Outcome
    }

    let mix: Mix
    /// The catalog the codes are drawn from.
    let catalog: CounterStores.Catalog

    static let barcodeScanner = "mock:bench"
    static let cardReader = "mock:bench-reader"
    static let camera = "mock:bench-camera"
    /// The daemon's mock devices, one of each kind, as a counter with a repair bench has.
    static let mockDevices = ["--mock", "barcode:bench", "--mock", "nfc:bench-reader", "--mock", "qr:bench-camera"]
    /// The demo's linked, active card, and what its customer's orders are scanned as.
    static let linkedCard = "04A1B2C3D4E5F6"
    static let orderLabels = [
        "https://app.repairminder.com/orders/ord_1001", "https://app.repairminder.com/orders/ord_1002",
    ]
    /// The demo's in-store price code: its cheddar, priced at the counter, at £12.34.
    static let inStorePriceCode = "2011122912346"
    static let demoBarcodes = ["5901234123457", "4006381333931", "036000291452"]
    static let demoGS1 = "0109506000134352172512311011ABC"

    func read(_ index: Int) -> Read {
        if mix == .unknownOnly || catalog == .none {
            return Read(device: Self.barcodeScanner, text: Scenarios.benchText(index), outcome: .unknown)
        }
        let slot = if case .onlyKind(let slot, _) = mix { slot } else { index % 20 }
        switch slot {
        case 0..<13:
            return Read(device: Self.barcodeScanner, text: productBarcode(index), outcome: .product)
        case 13, 14:
            let text =
                if case .shop = catalog {
                    "010" + productBarcode(index) + "17271231" + "10" + "LOT\(index % 1000)"
                } else {
                    Self.demoGS1
                }
            return Read(device: Self.barcodeScanner, text: text, symbology: "gs1-128", outcome: .product)
        case 15:
            let code =
                if case .shop = catalog {
                    CounterPeople.priceCode(
                        item: Self.spread(index) % CounterPeople.pricedItems, pence: 1 + Self.spread(index + 1) % 9_999)
                } else {
                    Self.inStorePriceCode
                }
            return Read(device: Self.barcodeScanner, text: code, outcome: .product)
        case 16, 17:
            let uid =
                if case .shop = catalog { CounterPeople.cardUID(Self.spread(index) % CounterPeople.customers) } else {
                    Self.linkedCard
                }
            return Read(device: Self.cardReader, uid: uid, outcome: .customer)
        case 18:
            let label =
                if case .shop = catalog { CounterPeople.orderLabel(Self.spread(index) % CounterPeople.orders) } else {
                    Self.orderLabels[(index / 20) % 2]
                }
            return Read(device: Self.camera, text: label, outcome: .order)
        default:
            return Read(device: Self.barcodeScanner, text: Scenarios.benchText(index), outcome: .unknown)
        }
    }

    /// What a keyboard-wedge scanner types as read `index`: the mix's EAN-13s, and one label in
    /// 20 that no product has (cards and repair-order labels come by other devices, and a GS1
    /// element string's separators by no keyboard).
    func typedLabel(_ index: Int) -> String {
        typedOutcome(index) == .unknown ? Scenarios.benchText(index) : productBarcode(index)
    }

    /// What read `index` of a keyboard-wedge scanner resolves to.
    func typedOutcome(_ index: Int) -> Outcome {
        index % 20 == 19 || mix == .unknownOnly || catalog == .none ? .unknown : .product
    }

    /// The `scan.inject` request for read `index`, with JSON-RPC id `id`.
    func injectLine(id: Int, index: Int) -> String {
        let read = read(index)
        var params = #""device":"\#(read.device)""#
        if let text = read.text { params += #","text":"\#(text)""# }
        if let uid = read.uid { params += #","uid":"\#(uid)""# }
        if let symbology = read.symbology { params += #","symbology":"\#(symbology)""# }
        return #"{"jsonrpc":"2.0","id":\#(id),"method":"scan.inject","params":{\#(params)}}"#
    }

    /// A line of a mock device's script that reads `read` after `delay` seconds.
    static func scriptLine(_ read: Read, delay: String = "0") -> String {
        var words = [delay]
        if let symbology = read.symbology { words.append("symbology=\(symbology)") }
        if let uid = read.uid { words.append("uid=\(uid)") }
        if let text = read.text { words.append(text) }
        return words.joined(separator: " ")
    }

    /// The expected count of each outcome in reads `0..<count`.
    func expectedOutcomes(count: Int) -> [Outcome: Int] {
        (0..<count).reduce(into: [:]) { counts, index in counts[read(index).outcome, default: 0] += 1 }
    }

    var description: String {
        switch (mix, catalog) {
        case (.unknownOnly, _), (_, .none): "labels no product has"
        case (.counter, .shop(let size)): "a counter's mix, \(size.formatted()) products"
        case (.counter, .demo): "a counter's mix, the demo catalog"
        case (.onlyKind(_, let name), _): "\(name) only"
        }
    }

    private func productBarcode(_ index: Int) -> String {
        switch catalog {
        case .shop(let size): CatalogScenarios.barcode(Self.spread(index) % size)
        case .demo, .none: Self.demoBarcodes[(index / 20) % Self.demoBarcodes.count]
        }
    }

    /// SplitMix64's finaliser: a fixed, well-spread hash of the index.
    private static func spread(_ index: Int) -> Int {
        var value = UInt64(truncatingIfNeeded: index) &+ 0x9E37_79B9_7F4A_7C15
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: (value ^ (value >> 31)) >> 1)
    }
}
