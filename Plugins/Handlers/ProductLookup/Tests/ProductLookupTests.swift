import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import ProductLookup

/// Which product code a scanned or typed text is, by content and symbology.
@Suite struct ProductCodeTests {
    static func classify(_ text: String, _ symbology: String? = nil, aim: String? = nil, region: VariableMeasure.Region = .gb)
        -> ProductCode?
    {
        ProductCode.classify(text: text, symbology: symbology, aim: aim, region: region)
    }

    @Test(
        arguments: [
            ("5901234123457", "ean-13", "05901234123457"),
            ("5901234123457", nil, "05901234123457"),
            ("036000291452", "upc-a", "00036000291452"),
            ("0036000291452", "ean-13", "00036000291452"),
            ("96385074", "ean-8", "00000096385074"),
            ("04252614", "upc-e", "00042100005264"),
            ("425261", "upc-e", "00042100005264"),
            ("15400141288763", "itf", "15400141288763"),
            ("0105901234123457\u{1D}10ABC", "gs1-128", "05901234123457"),
            ("(01)05901234123457(10)ABC", nil, "05901234123457"),
            ("https://id.gs1.org/01/05901234123457?17=251231", "qr", "05901234123457"),
        ] as [(String, String?, String)])
    func gtinForms(text: String, symbology: String?, gtin: String) {
        #expect(Self.classify(text, symbology) == .gtin(gtin))
    }

    @Test func gs1ByAIMIdentifier() {
        #expect(Self.classify("0105901234123457", "data-matrix", aim: "]d2") == .gtin("05901234123457"))
        // An SSCC names a pallet, not a product.
        #expect(Self.classify("00106141411234567897", "gs1-128", aim: "]C1") == nil)
    }

    @Test func labelsAreSKUs() {
        #expect(Self.classify("SKU001", "code-128") == .label("SKU001"))
        #expect(Self.classify("5901234123457", "code-128") == .label("5901234123457"), "digits in Code 128 are a label")
        #expect(Self.classify("AB-12", nil) == .label("AB-12"))
        #expect(Self.classify("A B", "code-39") == .label("A B"))
    }

    @Test func notProducts() {
        #expect(Self.classify("hello there", "qr") == nil)
        #expect(Self.classify("https://example.com/menu", "qr") == nil)
        #expect(Self.classify(String(repeating: "A", count: 65), "code-128") == nil)
        #expect(Self.classify("bad\u{7}text", "code-128") == nil)
    }

    @Test func invalidCodesSayWhy() throws {
        for (text, symbology) in [
            ("5901234123450", "ean-13"), ("5901234123450", nil), ("04252615", "upc-e"),
            ("12345", "ean-13"), ("0105901234123450", "gs1-128"),
            ("https://id.gs1.org/01/05901234123450", "qr"),
        ] as [(String, String?)] {
            guard case .invalid(let reason)? = Self.classify(text, symbology) else {
                Issue.record("\(text) should be invalid, is \(String(describing: Self.classify(text, symbology)))")
                continue
            }
            #expect(!reason.isEmpty)
        }
    }

    @Test func variableMeasureDependsOnTheRegion() throws {
        let code = try #require(Self.classify("2011122912346", "ean-13"))
        guard case .variableMeasure(let measure, let gtin) = code else {
            Issue.record("\(code)")
            return
        }
        #expect(gtin == "02011122000005" && measure.value == .price(digits: 1234, decimals: nil))
        #expect(Self.classify("2011122912346", "ean-13", region: .de) == .gtin("02011122912346"))
        // A UPC-A of number system 2 (2 12345 8 0499 5) is a $4.99 price in the US, a GTIN in GB.
        guard case .variableMeasure(let us, "00212345000007")? = Self.classify("212345804995", "upc-a", region: .us)
        else {
            Issue.record("US price barcode")
            return
        }
        #expect(us.value == .price(digits: 499, decimals: nil))
        #expect(Self.classify("212345804995", "upc-a") == .gtin("00212345804995"))
        guard case .invalid? = Self.classify("2011122812349", "ean-13") else {
            Issue.record("bad price check digit")
            return
        }
    }
}

/// The lookup against an in-memory catalog: what `products.lookup` and a scan answer.
@Suite struct ProductLookupTests {
    actor Catalog: ProductRepository {
        var products: [Product] = []
        init(_ products: [Product]) { self.products = products }
        func product(id: String) async throws -> Product? { products.first { $0.id == id } }
        func product(_ key: ProductKey, visibleTo store: String?) async throws -> Product? {
            products.first { product in
                guard product.isVisible(to: store) else { return false }
                switch key {
                case .gtin(let gtin): return product.gtin == gtin
                case .skuOrBarcode(let label): return product.sku == label || product.barcode == label
                }
            }
        }
        func upsert(_ products: [Product]) async throws -> [Product] { products }
        func delete(id: String) async throws -> Bool { false }
        func count() async throws -> Int { products.count }
    }

    static let catalog = Catalog([
        Product(
            id: "p1", storeId: "store_1", name: "Cappuccino", price: Money(minorUnits: 350, currency: "GBP"), sku: "SKU001",
            barcode: "5901234123457", trackStock: true, quantity: 50, lowStockThreshold: 10),
        Product(
            id: "p2", storeId: "store_2", name: "Elsewhere", price: Money(minorUnits: 100, currency: "GBP"),
            barcode: "4006381333931"),
        Product(
            id: "p3", storeId: "store_1", name: "Cheese", price: Money(minorUnits: 1250, currency: "GBP"),
            barcode: "2012345000002"),
    ])

    @Test func foundNotFoundAndInvalid() async throws {
        let lookup = ProductLookup(products: Self.catalog, catalog: CatalogSettings(storeId: "store_1"))
        let found = try await lookup.lookup(code: "5901234123457")
        #expect(found.status == "found" && found.details["product"]?["stockStatus"] == "inStock")
        #expect(try await lookup.lookup(code: "SKU001").details["product"]?["id"] == "p1")
        let otherStore = try await lookup.lookup(code: "4006381333931")
        #expect(otherStore.status == "not_found" && otherStore.details["gtin"] == "04006381333931")
        let everyStore = ProductLookup(products: Self.catalog, catalog: CatalogSettings())
        #expect(try await everyStore.lookup(code: "4006381333931").details["product"]?["id"] == "p2")
        #expect(try await lookup.lookup(code: "5901234123451").status == "invalid")
    }

    @Test func embeddedWeightIsPricedPerKilogram() async throws {
        // Sweden: prefix 23 is a weight with three decimals (kg).
        let lookup = ProductLookup(products: Self.catalog, catalog: CatalogSettings(region: .se))
        let data = "231234500250"
        let code = data + String(GTIN.checkDigit(forData: data)!)
        let resolution = try await lookup.lookup(code: code)
        #expect(resolution.details["embedded"]?["weightKg"] == .double(0.25))
    }

    @Test func aConfiguredLayoutFindsTheItemWithItsEmbeddedPrice() async throws {
        // GB with 21 configured as a 5-digit price after a 5-digit item: 21 12345 00350 4.
        let region = VariableMeasure.Region.gb.with(
            ["21": VariableMeasure.Layout("PPPPPPPVVVVV", .price, decimals: 2)], replacing: false)
        let catalog = Catalog([
            Product(
                id: "p4", storeId: "store_1", name: "Olives", price: Money(minorUnits: 0, currency: "GBP"),
                barcode: "2112345000008")
        ])
        let lookup = ProductLookup(products: catalog, catalog: CatalogSettings(region: region))
        let resolution = try await lookup.lookup(code: "2112345003504")
        #expect(resolution.status == "found")
        #expect(resolution.details["gtin"] == "02112345000008")
        #expect(resolution.details["embedded"] == ["price": "3.50", "currency": "GBP"])
    }

    @Test(
        "a label's price digits are minor units of the store's currency",
        arguments: [("GBP", "12.34"), ("JPY", "1234"), ("KWD", "1.234"), ("EUR", "12.34")])
    func embeddedPriceInTheStoresCurrency(currency: String, price: String) async throws {
        // GB 20: 5-digit item, price check digit, 4 price digits "1234".
        let lookup = ProductLookup(products: Catalog([]), catalog: CatalogSettings(currency: currency))
        let resolution = try await lookup.lookup(code: "2011122912346")
        #expect(resolution.status == "not_found")
        #expect(resolution.details["embedded"] == ["price": .string(price), "currency": .string(currency)])
    }

    @Test(
        "a weight is priced per kilogram, rounded half up to the currency's minor unit",
        arguments: [
            (Money(minorUnits: 990, currency: "JPY"), "248"),  // 990 yen × 0.250 kg = 247.5
            (Money(minorUnits: 1999, currency: "KWD"), "0.500"),  // 1.999 KWD × 0.250 kg = 0.49975
            (Money(minorUnits: 1198, currency: "GBP"), "3.00"),  // 11.98 GBP × 0.250 kg = 2.995
        ])
    func embeddedWeightInTheProductsCurrency(pricePerKg: Money, price: String) async throws {
        // Sweden: prefix 23 is a weight with three decimals (kg): 0250 is 0.250 kg.
        let item = "231234500000"
        let product = Product(
            id: "w1", storeId: nil, name: "Cheese", price: pricePerKg, barcode: item + String(GTIN.checkDigit(forData: item)!))
        let lookup = ProductLookup(products: Catalog([product]), catalog: CatalogSettings(currency: "GBP", region: .se))
        let data = "231234500250"
        let resolution = try await lookup.lookup(code: data + String(GTIN.checkDigit(forData: data)!))
        #expect(resolution.status == "found")
        #expect(
            resolution.details["embedded"]
                == ["weightKg": .double(0.25), "price": .string(price), "currency": .string(pricePerKg.currency)])
    }
}
