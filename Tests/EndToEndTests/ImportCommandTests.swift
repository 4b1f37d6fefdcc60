import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// `scanbridge lookup`, `products|orders import`, `cards`, `customers` against the real daemon.
@Suite("Import, lookup, cards and customers commands end to end", .heavy, .timeLimit(.minutes(5)))
struct ImportCommandTests {
    static let catalog = """
        name,price,sku,barcode,trackStock,quantity
        Cappuccino,3.50,SKU001,5901234123457,yes,50
        Tea,3.499,SKU002,,,
        "Cake, lemon",2.10,SKU003,,true,2
        Bun,1.00,SKU004,5901234123458,,
        Scone,1.20,,4006381333931,no,

        """

    @Test func csvImportReportsBadRowsByLineAndIsIdempotent() async throws {
        let daemon = try await startDaemon()
        let socket = ["--socket", daemon.socketPath]
        let file = try daemon.write("catalog.csv", Self.catalog)

        let first = try await run("scanbridge", ["products", "import", file] + socket)
        #expect(first.status == 1, "rows were skipped")
        #expect(first.out == "imported 3 products from \(file); 2 rows skipped\n")
        #expect(first.err.contains("catalog.csv:3: price has 3 decimals (3.499) but GBP has 2"), "\(first.err)")
        #expect(first.err.contains("catalog.csv:5: barcode"), "\(first.err)")
        #expect(first.err.split(separator: "\n").count == 2)

        for (code, name) in [("5901234123457", "Cappuccino"), ("SKU003", "Cake, lemon"), ("4006381333931", "Scone")] {
            let found = try await run("scanbridge", ["lookup", code] + socket)
            #expect(found.status == 0, "\(code): \(found.err)")
            #expect(found.out.contains(name), "\(found.out)")
        }
        let stock = try await run("scanbridge", ["lookup", "SKU003"] + socket)
        #expect(stock.out.contains("2.10 GBP") && stock.out.contains("in stock (2)"), "\(stock.out)")

        let again = try await run("scanbridge", ["products", "import", file] + socket)
        #expect(again.out == first.out, "importing again updates the same products")
        let json = try await run("scanbridge", ["lookup", "5901234123457", "--json"] + socket)
        #expect(json.out.contains("\"quantity\": 50") && json.out.contains("\"order\""), "\(json.out)")
    }

    /// A shop's export has no currency column: its prices have the decimals of the shop's
    /// currency, which is the daemon's catalog.currency. A JPY shop's Shopify export says
    /// "500", a KWD shop's "1.250"; one decimal too many is refused by its line.
    @Test(arguments: [
        ("JPY", "500", "800.5", "1 decimal (800.5) but JPY has 0"),
        ("KWD", "1.250", "1.2505", "4 decimals (1.2505) but KWD has 3"),
    ])
    func aShopifyExportInTheShopsCurrency(currency: String, price: String, tooPrecise: String, says: String) async throws {
        let daemon = try await startDaemon([], config: "catalog:\n  currency: \(currency)\n")
        let socket = ["--socket", daemon.socketPath]
        let file = try daemon.write(
            "products_export.csv",
            """
            Handle,Title,Type,Option1 Name,Option1 Value,Variant SKU,Variant Inventory Tracker,Variant Inventory Qty,\
            Variant Price,Variant Barcode
            matcha,Matcha,Tea,Title,Default Title,MAT-1,,,\(price),4006381333931
            sencha,Sencha,Tea,Title,Default Title,SEN-1,,,\(tooPrecise),

            """)
        let imported = try await run("scanbridge", ["products", "import", file, "--preset", "shopify"] + socket)
        #expect(imported.status == 1, "a row was skipped")
        #expect(imported.out == "imported 1 product from \(file); 1 row skipped\n", "\(imported.out)")
        #expect(imported.err.contains("products_export.csv:3: price has \(says)"), "\(imported.err)")
        let found = try await run("scanbridge", ["lookup", "4006381333931"] + socket)
        #expect(found.out.contains("Matcha") && found.out.contains("\(price) \(currency)"), "\(found.out)")
        let client = try await daemon.connect()
        let product = try await client.call("products.lookup", ["code": "MAT-1"])["product"]
        #expect(
            product?["price"] == .string(price) && product?["currency"] == .string(currency), "\(String(describing: product))")
        await client.close()
    }

    @Test func jsonArrayAndJSONLines() async throws {
        let daemon = try await startDaemon()
        let socket = ["--socket", daemon.socketPath]
        let array = try daemon.write(
            "catalog.json",
            """
            [
              {"name": "Latte", "price": "3.20", "sku": "LAT"},
              {"name": "Mocha", "price": 3.9, "sku": "MOC", "category": "Hot [drinks], {x}"}
            ]

            """)
        let lines = try daemon.write(
            "more.jsonl",
            """
            {"name": "Flat white", "price": "3.10", "sku": "FLW"}
            {"name": "Broken", "price": "1.00", "sku":
            {"name": "Cortado", "price": "2.80", "sku": "COR"}

            """)
        let imported = try await run("scanbridge", ["products", "import", array] + socket)
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out == "imported 2 products from \(array)\n")
        let partly = try await run("scanbridge", ["products", "import", lines] + socket)
        #expect(partly.status == 1)
        #expect(partly.out.hasPrefix("imported 2 products from \(lines); 1 row skipped"))
        #expect(partly.err.contains("more.jsonl:2: not valid JSON"), "\(partly.err)")
        for code in ["LAT", "MOC", "FLW", "COR"] {
            #expect(try await run("scanbridge", ["lookup", code] + socket).status == 0, "\(code)")
        }
        #expect(try await run("scanbridge", ["lookup", "Broken"] + socket).status == 1)
    }

    @Test func anUnknownColumnOrNoDaemonIsOneSentence() async throws {
        let daemon = try await startDaemon()
        let file = try daemon.write("bad.csv", "name,prise\nTea,1\n")
        let unknown = try await run("scanbridge", ["products", "import", file, "--socket", daemon.socketPath])
        #expect(unknown.status == 1)
        #expect(
            unknown.err.contains("bad.csv:1: unknown column 'prise'; the columns are id, storeId, name, price"), "\(unknown.err)")
        #expect(unknown.out == "imported 0 products from \(file); stopped before the end of the file by the error above\n")

        let stopped = try DaemonHarness()
        let none = try await run("scanbridge", ["products", "import", file, "--socket", stopped.socketPath])
        #expect(none.status == 2, "the daemon cannot be reached")
        #expect(none.err.contains(stopped.socketPath) && !none.err.contains("Fatal error"), "\(none.err)")
    }

    @Test func ordersFromCSVAreFoundByReferenceAndDevice() async throws {
        let daemon = try await startDaemon()
        let socket = ["--socket", daemon.socketPath]
        let file = try daemon.write(
            "orders.csv",
            """
            id,reference,status,clientName,deviceId,make,model,serial,deviceStatus
            ord_1,RM-1001,in_progress,Ada Lovelace,dev_55,Apple,iPhone 13,F2LXK0ABCD,diagnosing
            ord_1,,,,dev_56,Samsung,S21,R5CR,received
            ord_2,RM-1002,open,Bob,,,,,

            """)
        let imported = try await run("scanbridge", ["orders", "import", file] + socket)
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out == "imported 2 orders from \(file)\n")
        let order = try await run("scanbridge", ["lookup", "RM-1001"] + socket)
        #expect(order.status == 0 && order.out.contains("Ada Lovelace") && order.out.contains("Samsung S21"), "\(order.out)")
        let device = try await run("scanbridge", ["lookup", "DEVICE:dev_56"] + socket)
        #expect(
            device.out.split(separator: "\n").contains { $0.contains("dev_56") && $0.contains("← this code") }, "\(device.out)")
    }

    @Test func cardsAndCustomers() async throws {
        let daemon = try await startDaemon(["--mock", "nfc:door"])
        let socket = ["--socket", daemon.socketPath]

        let link = try await run("scanbridge", ["cards", "link", "04:a1:b2:c3:d4:e5:f6", "rAda", "--name", "Blue fob"] + socket)
        #expect(link.status == 0, "\(link.err)")
        #expect(link.out == "linked Blue fob (04:A1:B2:C3:D4:E5:F6) to wallet rAda\n")
        let conflict = try await run("scanbridge", ["cards", "link", "04A1B2C3D4E5F6", "rBob"] + socket)
        #expect(conflict.status == 1 && conflict.err.contains("error -32002"), "\(conflict.err)")

        let list = try await run("scanbridge", ["cards", "list", "--wallet", "rAda"] + socket)
        #expect(list.out.hasPrefix("UID"))
        #expect(list.out.contains("04:A1:B2:C3:D4:E5:F6  Blue fob  active  uid       rAda"), "\(list.out)")
        let secure = try await run("scanbridge", ["cards", "link", "045EC012345678", "rAda", "--security", "secure"] + socket)
        #expect(secure.status == 0, "\(secure.err)")
        let both = try await run("scanbridge", ["cards", "list", "--wallet", "rAda"] + socket)
        #expect(both.out.contains("active  secure    rAda"), "\(both.out)")
        _ = try await run("scanbridge", ["cards", "unlink", "045EC012345678"] + socket)

        let block = try await run("scanbridge", ["cards", "block", "04A1B2C3D4E5F6"] + socket)
        #expect(block.status == 0 && block.out.contains("blocked, wallet rAda"), "\(block.out)")
        let tap = try await run("scanbridge", ["inject", "door", "--uid", "04A1B2C3D4E5F6"] + socket)
        #expect(tap.out.contains("card-link blocked"), "\(tap.out)")
        let unblock = try await run("scanbridge", ["cards", "unblock", "04A1B2C3D4E5F6", "--json"] + socket)
        #expect(unblock.out.contains("\"status\": \"active\""), "\(unblock.out)")

        let set = try await run(
            "scanbridge", ["customers", "set", "rAda", "--name", "Ada Lovelace", "--email", "ada@example.com"] + socket)
        #expect(set.status == 0, "\(set.err)")
        let show = try await run("scanbridge", ["customers", "show", "rAda"] + socket)
        #expect(show.out.contains("Ada Lovelace") && show.out.contains("ada@example.com"), "\(show.out)")
        #expect(show.out.contains("first card linked") && show.out.contains("Blue fob"), "\(show.out)")

        let unlink = try await run("scanbridge", ["cards", "unlink", "04A1B2C3D4E5F6"] + socket)
        #expect(unlink.status == 0)
        let empty = try await run("scanbridge", ["cards", "list", "--wallet", "rAda"] + socket)
        #expect(empty.out == "no cards linked to wallet rAda\n")
        let missing = try await run("scanbridge", ["customers", "show", "rNobody"] + socket)
        #expect(missing.status == 1 && missing.err.contains("error -32001"), "\(missing.err)")
    }

    @Test func armedReaderLinksTheNextTap() async throws {
        let daemon = try await startDaemon(["--mock", "nfc:door"])
        let socket = ["--socket", daemon.socketPath]
        let arm = try Spawned("scanbridge", ["cards", "arm", "rCleo", "--device", "mock:door", "--timeout", "20"] + socket)
        let client = try await daemon.connect()
        // Tapped once the command says the reader is armed: a tap before that finds an unknown card.
        try await waitUntil("cards arm to ask for a tap; it said: \(arm.errors)", timeout: .seconds(30)) {
            arm.errors.contains("Tap the card")
        }
        _ = try await client.inject(device: "mock:door", uid: "04556677")
        let result = try await arm.finish(timeout: .seconds(30))
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.hasPrefix("linked ") && result.out.contains("(04:55:66:77) to wallet rCleo"), "\(result.out)")
        #expect(result.err.contains("Tap the card on the reader mock:door"))

        let timeout = try await run("scanbridge", ["cards", "arm", "rCleo", "--timeout", "1"] + socket)
        #expect(timeout.status == 1 && timeout.err.contains("no card was tapped within 1 s"), "\(timeout.err)")
        await client.close()
    }
}
