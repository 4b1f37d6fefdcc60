import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// The catalog and the `product-lookup` handler, through the real daemon's socket.
@Suite("Products end to end", .heavy, .timeLimit(.minutes(5)))
struct ProductsEndToEndTests {
    static let cappuccino: JSONValue = [
        "id": "prod_1", "name": "Cappuccino", "price": "3.50", "sku": "SKU001", "category": "Hot Drinks",
        "barcode": "5901234123457", "trackStock": true, "quantity": 50, "lowStockThreshold": 10,
    ]

    @Test func upsertThenLookUpEveryFormOfOneItem() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till"])
        let client = try await daemon.connect()
        let stored = try await client.call("products.upsert", ["product": Self.cappuccino])
        let product = try #require(stored["products"]?.arrayValue?.first)
        #expect(product["gtin"] == "05901234123457" && product["price"] == "3.50" && product["currency"] == "GBP")
        #expect(product["stockStatus"] == "inStock" && product["canSell"] == true && product["storeId"] == .null)
        #expect(stored["notVisibleHere"] == [], "a product of no store is found by every daemon")

        for code in ["5901234123457", "05901234123457", " 5901234123457 "] {
            let found = try await client.call("products.lookup", ["code": .string(code)])
            #expect(found["status"] == "found", "\(code)")
            #expect(found["product"]?["name"] == "Cappuccino" && found["gtin"] == "05901234123457")
            #expect(found["handler"] == nil, "a lookup result has no handler")
        }
        // A UPC-A item is found by its UPC-A, EAN-13, GTIN-14 and UPC-E forms.
        _ = try await client.call(
            "products.upsert", ["product": ["name": "Cola", "price": .double(1.2), "barcode": "042100005264"]])
        for code in ["042100005264", "0042100005264", "00042100005264"] {
            #expect(try await client.call("products.lookup", ["code": .string(code)])["product"]?["name"] == "Cola")
        }
        let upcE = try await client.inject(device: "mock:till", text: "04252614", symbology: "upc-e")
        #expect(upcE.resolution.handler == "product-lookup" && upcE.resolution.status == "found")
        #expect(upcE.resolution.details["product"]?["price"] == "1.20")

        let scanned = try await client.inject(device: "mock:till", text: "5901234123457")
        #expect(scanned.resolution.status == "found" && scanned.resolution.details["gtin"] == "05901234123457")
        let sku = try await client.inject(device: "mock:till", text: "SKU001", symbology: "code-128")
        #expect(sku.resolution.status == "found" && sku.resolution.details["product"]?["id"] == "prod_1")
        await client.close()
    }

    /// The protocol's own example product, word for word: `store_123`.
    static let protocolExample: JSONValue = [
        "id": "prod_1", "storeId": "store_123", "name": "Cappuccino", "price": "3.50", "currency": "GBP", "sku": "SKU001",
        "category": "Hot Drinks", "barcode": "5901234123457", "trackStock": true, "quantity": 50,
        "lowStockThreshold": 10, "allowNegativeStock": false,
    ]

    @Test func theProtocolsExampleProductIsFoundByADaemonWithNoStoreConfigured() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till"])
        let client = try await daemon.connect()
        let stored = try await client.call("products.upsert", ["product": Self.protocolExample])
        #expect(stored["products"]?.arrayValue?.first?["storeId"] == "store_123")
        #expect(stored["notVisibleHere"] == [])
        for code in ["5901234123457", "SKU001"] {
            let found = try await client.call("products.lookup", ["code": .string(code)])
            #expect(found["status"] == "found" && found["product"]?["id"] == "prod_1", "\(code)")
        }
        let scanned = try await client.inject(device: "mock:till", text: "5901234123457")
        #expect(scanned.resolution.status == "found" && scanned.resolution.details["product"]?["storeId"] == "store_123")
        await client.close()
    }

    @Test func aProductOfAnotherStoreIsStoredAndNamedAsNotVisibleHere() async throws {
        let daemon = try await startDaemon([], config: "catalog:\n  store_id: store_1\n")
        let client = try await daemon.connect()
        let stored = try await client.call(
            "products.upsert",
            [
                "products": [
                    Self.protocolExample,
                    ["id": "prod_2", "storeId": "store_1", "name": "Tea", "price": "2.00", "barcode": "4006381333931"],
                    ["id": "prod_3", "name": "Water", "price": "1.00", "sku": "WATER-1"],
                ]
            ])
        #expect(stored["products"]?.arrayValue?.count == 3)
        #expect(stored["notVisibleHere"] == ["prod_1"])
        #expect(try await client.call("products.lookup", ["code": "5901234123457"])["status"] == "not_found")
        #expect(try await client.call("products.lookup", ["code": "4006381333931"])["product"]?["id"] == "prod_2")
        let water = try await client.call("products.lookup", ["code": "WATER-1"])
        #expect(water["product"]?["id"] == "prod_3" && water["product"]?["storeId"] == .null, "no store: found here too")
        await client.close()
    }

    @Test func aStoreIdNoProductCouldHaveStopsTheDaemon() async throws {
        for (store, message) in [
            (String(repeating: "s", count: 129), "catalog.store_id may have at most 128 characters"),
            ("\"shop\\u0007\"", "catalog.store_id must not contain control characters"),
        ] {
            let harness = try DaemonHarness()
            let path = try harness.write("scanbridge.yaml", "catalog:\n  store_id: \(store)\n")
            let daemon = try DaemonHarness.reusing(harness, arguments: ["--config", path])
            await #expect(throws: DaemonHarness.Failure.self) { try await daemon.start() }
            #expect(daemon.log.contains(message), "\(daemon.log)")
        }
    }

    @Test func wrongCheckDigitIsInvalidWithAReason() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till"])
        let client = try await daemon.connect()
        let typed = try await client.call("products.lookup", ["code": "5901234123450"])
        #expect(typed["status"] == "invalid")
        #expect(typed["reason"]?.stringValue?.contains("check digit") == true)
        let scanned = try await client.inject(device: "mock:till", text: "5901234123450")
        #expect(scanned.resolution.handler == "product-lookup" && scanned.resolution.status == "invalid")
        let unknown = try await client.call("products.lookup", ["code": "4006381333931"])
        #expect(unknown["status"] == "not_found" && unknown["gtin"] == "04006381333931")
        #expect(unknown["reason"]?.stringValue?.isEmpty == false)
        await client.close()
    }

    @Test func gs1CodesAndDigitalLinksFindTheProductAndCarryTheirElements() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till", "--mock", "qr:cam"])
        let client = try await daemon.connect()
        _ = try await client.call("products.upsert", ["product": Self.cappuccino])
        let gs1 = try await client.inject(
            device: "mock:till", text: "]C10105901234123457\u{1D}10ABC1\u{1D}17251231", symbology: "gs1-128")
        #expect(gs1.gs1 == ["01": "05901234123457", "10": "ABC1", "17": "251231"])
        #expect(gs1.resolution.status == "found")
        let link = try await client.inject(device: "mock:cam", text: "https://id.gs1.org/01/05901234123457/10/ABC%2F1?17=251231")
        #expect(link.gs1 == ["01": "05901234123457", "10": "ABC/1", "17": "251231"])
        #expect(link.resolution.handler == "product-lookup" && link.resolution.status == "found")
        let plainQR = try await client.inject(device: "mock:cam", text: "hello there")
        #expect(plainQR.resolution == .unhandled && plainQR.gs1 == nil)
        await client.close()
    }

    @Test func variableMeasureBarcodesResolveToTheItemWithTheirPrice() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:scale"])
        let client = try await daemon.connect()
        // Stored under its item code: the price digits zeroed and both check digits recomputed.
        _ = try await client.call(
            "products.upsert", ["product": ["name": "Cheddar (by price)", "price": "0.00", "barcode": "2011122000005"]])
        let event = try await client.inject(device: "mock:scale", text: "2011122912346")
        #expect(event.resolution.status == "found")
        #expect(event.resolution.details["product"]?["name"] == "Cheddar (by price)")
        #expect(event.resolution.details["embedded"] == ["price": "12.34", "currency": "GBP"])
        let badPriceCheck = try await client.call("products.lookup", ["code": "2011122812349"])
        #expect(badPriceCheck["status"] == "invalid")
        await client.close()
    }

    @Test func stockStatusAndCanSellFollowTheSeed() async throws {
        let daemon = try await startDaemon()
        let client = try await daemon.connect()
        let cases: [(JSONValue, String, Bool)] = [
            (["trackStock": false, "quantity": 0], "notTracked", true),
            (["trackStock": true, "quantity": 0], "outOfStock", false),
            (["trackStock": true, "quantity": -2, "allowNegativeStock": true], "outOfStock", true),
            (["trackStock": true, "quantity": 3, "lowStockThreshold": 5], "low", true),
            (["trackStock": true, "quantity": 5, "lowStockThreshold": 5], "low", true),
            (["trackStock": true, "quantity": 6, "lowStockThreshold": 5], "inStock", true),
        ]
        for (index, (stock, status, canSell)) in cases.enumerated() {
            var fields = stock.objectValue!
            fields["name"] = .string("Item \(index)")
            fields["price"] = "1.00"
            fields["sku"] = .string("S\(index)")
            let product = try await client.call("products.upsert", ["product": .object(fields)])["products"]?[0]
            #expect(product?["stockStatus"] == .string(status) && product?["canSell"] == .bool(canSell), "\(stock)")
        }
        await client.close()
    }

    /// Amounts have exactly their currency's ISO 4217 decimals, in and out; one decimal more
    /// is refused, never rounded, by every method that takes a product.
    @Test func amountsHaveTheirCurrencysDecimals() async throws {
        let daemon = try await startDaemon()
        let client = try await daemon.connect()
        func stored(_ price: JSONValue, _ currency: String) async throws -> JSONValue? {
            let answer = try await client.call(
                "products.upsert", ["product": ["id": "p", "name": "P", "price": price, "currency": .string(currency)]])
            return answer["products"]?[0]?["price"]
        }
        #expect(try await stored("3.5", "GBP") == "3.50")
        #expect(try await stored("500", "JPY") == "500")
        #expect(try await stored(.int(500), "JPY") == "500")
        #expect(try await stored(.double(500), "JPY") == "500", "a whole JSON number has no decimals")
        #expect(try await stored("1.25", "KWD") == "1.250")
        #expect(try await stored(.double(1.25), "KWD") == "1.250")
        #expect(try await stored("1.250", "kwd") == "1.250")
        #expect(try await client.call("products.lookup", ["code": "p"])["status"] == "not_found", "an id is no code")

        let refused: [(JSONValue, String, String, String)] = [
            ("1.005", "EUR", "product.price", "product.price has 3 decimals (1.005) but EUR has 2"),
            ("500.5", "JPY", "product.price", "product.price has 1 decimal (500.5) but JPY has 0"),
            ("500.0", "JPY", "product.price", "product.price has 1 decimal (500.0) but JPY has 0"),
            ("1.2505", "KWD", "product.price", "product.price has 4 decimals (1.2505) but KWD has 3"),
            (.double(1.2505), "KWD", "product.price", "product.price has 4 decimals (1.2505) but KWD has 3"),
            ("1", "XAU", "product.currency", "product.currency: XAU has no minor unit in ISO 4217"),
            ("10000000000", "JPY", "product.price", "product.price is too large (10000000000)"),
        ]
        for (price, currency, field, message) in refused {
            let error = await expectRPCError(RPCError.invalidParams) {
                _ = try await stored(price, currency)
            }
            #expect(error?.data?["field"] == .string(field), "\(price) \(currency)")
            #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        }
        // The last price stored is kept: nothing was rounded into it.
        let kept = try await client.call("products.list", [:])["products"]?[0]
        #expect(kept?["price"] == "1.250" && kept?["currency"] == "KWD", "\(String(describing: kept))")

        // A currency changed converts nothing: the amount is read in the currency given with it.
        await expectRPCError(RPCError.invalidParams) { _ = try await stored("3.50", "JPY") }
        #expect(try await stored("350", "JPY") == "350")

        // The staged catalog reads prices as products.upsert does.
        let staged = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call(
                "products.stage", ["products": [["id": "s", "name": "S", "price": "1.005", "currency": "EUR"]]])
        }
        #expect(staged?.data?["field"] == "products[0].price")
        #expect(staged?.message == "products[0].price has 3 decimals (1.005) but EUR has 2")
        await client.close()
    }

    @Test func aCatalogInACurrencyWithoutMinorUnitKeepsTheDaemonFromStarting() async throws {
        let harness = try DaemonHarness()
        let config = try harness.write("scanbridge.yaml", "catalog:\n  currency: XAU\n")
        let result = try await run(
            "scanbridged",
            [
                "--config", config, "--drivers", "mock", "--socket", harness.directory.appendingPathComponent("s.sock").path,
                "--database", harness.directory.appendingPathComponent("scanbridge.sqlite").path,
            ])
        #expect(result.status != 0)
        #expect(result.err.contains("catalog.currency: XAU has no minor unit in ISO 4217"), "\(result.err)")
    }

    @Test func badProductsAreRefusedByFieldAndNothingOfTheBatchIsStored() async throws {
        let daemon = try await startDaemon()
        let client = try await daemon.connect()
        let bad: [(JSONValue, String)] = [
            (["name": "A", "price": "3.499", "sku": "A"], "product.price"),
            (["name": "A", "price": -1, "sku": "A"], "product.price"),
            (["name": "A", "price": "3.50", "currency": "XYZ", "sku": "A"], "product.currency"),
            (["name": "A", "price": "3.50", "barcode": "5901234123450"], "product.barcode"),
            (["price": "3.50", "sku": "A"], "product.name"),
            (["name": "A", "price": "3.50"], "product.id"),
        ]
        for (product, field) in bad {
            let error = await expectRPCError(RPCError.invalidParams) {
                _ = try await client.call("products.upsert", ["product": product])
            }
            #expect(error?.data?["field"] == .string(field), "\(product)")
        }
        _ = try await client.call("products.upsert", ["product": Self.cappuccino])
        let conflict = await expectRPCError(RPCError.conflict) {
            _ = try await client.call(
                "products.upsert",
                [
                    "products": [
                        ["name": "New", "price": "1.00", "sku": "NEW"],
                        ["id": "prod_2", "name": "Clash", "price": "1.00", "barcode": "5901234123457"],
                    ]
                ])
        }
        #expect(conflict?.data?["field"]?.stringValue?.hasPrefix("products[1]") == true)
        #expect(try await client.call("products.lookup", ["code": "NEW"])["status"] == "not_found")
        _ = try await client.call("products.delete", ["id": "prod_1"])
        #expect(try await client.call("products.lookup", ["code": "5901234123457"])["status"] == "not_found")
        await expectRPCError(RPCError.notFound) { _ = try await client.call("products.delete", ["id": "prod_1"]) }
        await client.close()
    }
}
