import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// `products import --prune`, `products.list` paging, and export → import, against the real daemon.
@Suite("Catalog replace, list and export end to end", .heavy, .timeLimit(.minutes(5)))
struct CatalogReplaceTests {
    static let catalog = """
        name,price,sku,barcode
        Cappuccino,3.50,SKU001,5901234123457
        Tea,2.00,SKU002,
        Bun,1.00,SKU004,4006381333931

        """

    /// Every product id of the catalog, read through products.list pages of `limit`.
    static func ids(_ client: ScanBridgeClient, storeId: String? = nil, limit: Int = 1000) async throws -> [String] {
        var ids: [String] = []
        var after: JSONValue = .null
        repeat {
            var params: [String: JSONValue] = ["limit": .int(Int64(limit)), "after": after]
            if let storeId { params["storeId"] = .string(storeId) }
            let page = try await client.call("products.list", .object(params))
            ids += (page["products"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            after = page["next"] ?? .null
        } while after != .null
        return ids
    }

    @Test func pruneDeletesWhatTheFileLacksAndOnlyThat() async throws {
        let daemon = try await startDaemon()
        let socket = ["--socket", daemon.socketPath]
        let client = try await daemon.connect()
        _ = try await client.call(
            "products.upsert",
            [
                "products": [
                    ["id": "old", "name": "Discontinued", "price": "1"],
                    ["id": "other", "storeId": "store_2", "name": "Elsewhere", "price": "1"],
                ]
            ])
        let file = try daemon.write("catalog.csv", Self.catalog)
        let pruned = try await run("scanbridge", ["products", "import", file, "--prune"] + socket)
        #expect(pruned.status == 0, "\(pruned.err)")
        #expect(
            pruned.out
                == "replaced the catalog of no store with 3 products from \(file); deleted 1 product not in the file\n")
        #expect(
            try await Self.ids(client) == ["other", "prod_05901234123457", "prod_04006381333931", "prod_SKU002"].sorted(),
            "the other store's product stays")
    }

    @Test func aSkippedRowOrAMixOfStoresMakesThePruneChangeNothing() async throws {
        let daemon = try await startDaemon()
        let socket = ["--socket", daemon.socketPath]
        let client = try await daemon.connect()
        _ = try await client.call("products.upsert", ["product": ["id": "old", "name": "Kept", "price": "1"]])
        let bad = try daemon.write("bad.csv", Self.catalog + "Broken,x.y,SKU009,\n")
        let refused = try await run("scanbridge", ["products", "import", bad, "--prune"] + socket)
        #expect(refused.status == 1)
        #expect(refused.err.contains("bad.csv:5: price"), "\(refused.err)")
        #expect(refused.err.contains("--prune changed nothing, because 1 row was skipped"), "\(refused.err)")
        #expect(refused.out == "changed nothing: the catalog is as it was before the import\n")
        #expect(try await Self.ids(client) == ["old"])

        let mixed = try daemon.write("mixed.csv", "name,price,sku,storeId\nTea,1,T1,store_1\nCake,2,C1,store_2\n")
        let mixedRun = try await run("scanbridge", ["products", "import", mixed, "--prune"] + socket)
        #expect(mixedRun.status == 1)
        #expect(mixedRun.err.contains("more than one store"), "\(mixedRun.err)")
        #expect(try await Self.ids(client) == ["old"])
    }

    @Test func stagedProductsOfAConnectionThatClosesAreDiscarded() async throws {
        let daemon = try await startDaemon()
        let client = try await daemon.connect()
        _ = try await client.call("products.upsert", ["product": ["id": "old", "name": "Kept", "price": "1"]])
        let importer = try await daemon.connect()
        _ = try await importer.call("products.stage", ["products": [["id": "new", "name": "Staged", "price": "2"]]])
        #expect(try await Self.ids(client) == ["old"], "staged products are not in the catalog")
        await importer.close()
        // The connection closed before its commit: a new connection's commit finds nothing.
        let other = try await daemon.connect()
        _ = await expectRPCError(RPCError.invalidParams) {
            _ = try await other.call("products.commit", ["prune": true])
        }
        _ = try await other.call("products.stage", ["products": [["id": "newer", "name": "Staged", "price": "2"]]])
        let commit = try await other.call("products.commit", ["prune": true])
        #expect(commit["stored"] == 1 && commit["deleted"] == 1 && commit["storeId"] == .null, "\(commit)")
        #expect(try await Self.ids(client) == ["newer"], "the closed connection's staged product never arrived")
    }

    @Test func aCommitThatConflictsChangesNothing() async throws {
        let daemon = try await startDaemon()
        let client = try await daemon.connect()
        _ = try await client.call("products.upsert", ["product": ["id": "old", "name": "Kept", "price": "1"]])
        _ = try await client.call(
            "products.stage",
            [
                "products": [
                    ["id": "a", "name": "A", "price": "1", "sku": "SAME"],
                    ["id": "b", "name": "B", "price": "1", "sku": "SAME"],
                ]
            ])
        _ = await expectRPCError(RPCError.conflict) {
            _ = try await client.call("products.commit", ["prune": true])
        }
        #expect(try await Self.ids(client) == ["old"], "the failed commit deleted and stored nothing")
    }

    @Test func listPagesThroughTheCatalogInIdOrder() async throws {
        let daemon = try await startDaemon()
        let client = try await daemon.connect()
        let products: [JSONValue] = (0..<25).map { .object(["id": .string("p\(100 + $0)"), "name": "Item", "price": "1"]) }
        _ = try await client.call("products.upsert", ["products": .array(products)])
        _ = try await client.call("products.upsert", ["product": ["id": "z", "storeId": "store_2", "name": "Z", "price": "1"]])
        let first = try await client.call("products.list", ["limit": 10])
        #expect(first["products"]?.arrayValue?.count == 10 && first["next"] == "p109", "\(first)")
        #expect(try await Self.ids(client, limit: 7) == (100..<125).map { "p\($0)" } + ["z"])
        #expect(try await Self.ids(client, storeId: "store_2", limit: 1) == ["z"])
        let table = try await run("scanbridge", ["products", "list", "--limit", "2", "--socket", daemon.socketPath])
        #expect(table.status == 0 && table.out.hasPrefix("ID"), "\(table.err)")
        let lines = table.out.split(separator: "\n")
        #expect(lines.count == 4 && lines[2].hasPrefix("p101  Item  1.00 GBP"), "\(table.out)")
        #expect(lines.last == "more follow: --after p101", "\(table.out)")
        _ = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("products.list", ["limit": 1001])
        }
    }

    @Test(arguments: ["csv", "jsonl"])
    func exportThenImportChangesNothing(format: String) async throws {
        let daemon = try await startDaemon()
        let socket = ["--socket", daemon.socketPath]
        let client = try await daemon.connect()
        let tricky: [JSONValue] = [
            [
                "id": "p1", "name": "Cake, \"lemon\"; large", "price": "2.10", "sku": "C;1", "category": " padded ",
                "barcode": "5901234123457", "trackStock": true, "quantity": -3, "lowStockThreshold": 2,
                "allowNegativeStock": true, "parentId": "cake", "variant": "Large / Lemon",
            ],
            ["id": "p2", "name": "Café crème €", "price": "0", "currency": "EUR"],
        ]
        _ = try await client.call("products.upsert", ["products": .array(tricky)])
        let before = try await client.call("products.list", [:])
        let file = daemon.directory.appendingPathComponent("export.\(format)").path
        let exported = try await run("scanbridge", ["products", "export", file] + socket)
        #expect(exported.status == 0, "\(exported.err)")
        #expect(exported.err.contains("exported 2 products"), "\(exported.err)")
        let imported = try await run("scanbridge", ["products", "import", file, "--prune"] + socket)
        #expect(imported.status == 0, "\(imported.err)")
        #expect(try await client.call("products.list", [:]) == before, "export → import is a round trip")
    }

    @Test func aShopsFilesAsTheyAre() async throws {
        let daemon = try await startDaemon()
        let socket = ["--socket", daemon.socketPath]
        let client = try await daemon.connect()
        let badMap = try await run(
            "scanbridge", ["products", "import", "-", "--format", "csv", "--map", "EAN=ean"] + socket)
        #expect(badMap.status == 64 && badMap.err.contains("'EAN' is mapped to 'ean', which is no field"), "\(badMap.err)")

        let shopify = try daemon.write("products_export.csv", ImportPresetFixtures.shopify)
        let imported = try await run("scanbridge", ["products", "import", shopify, "--preset", "shopify"] + socket)
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out == "imported 4 products from \(shopify)\n")
        let tee = try await client.call("products.lookup", ["code": "4006381333931"])
        #expect(tee["product"]?["variant"] == "Large / Blue" && tee["product"]?["parentId"] == "classic-tee", "\(tee)")

        // Excel's "CSV" in Germany: semicolons, Windows-1252, decimal commas in a column left out.
        let bytes: [UInt8] =
            Array("Artikel;EAN;Preis;Notiz\r\nK".utf8) + [0xE4] + Array("se;KASE-1;2.50;".utf8) + [0x80]
            + Array("\r\n".utf8)
        let excel = daemon.directory.appendingPathComponent("excel.csv")
        try Data(bytes).write(to: excel)
        let mapped = try await run(
            "scanbridge",
            ["products", "import", excel.path, "--map", "Artikel=name,EAN=barcode,Preis=price", "--ignore-unknown-columns"]
                + socket)
        #expect(mapped.status == 0, "\(mapped.err)")
        let cheese = try await client.call("products.lookup", ["code": "KASE-1"])
        #expect(cheese["product"]?["name"] == "Käse", "\(cheese)")
    }
}

/// The presets' fixtures, shared with the end-to-end tests.
enum ImportPresetFixtures {
    static let shopify = """
        Handle,Title,Type,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Variant SKU,Variant Inventory Tracker,\
        Variant Inventory Qty,Variant Price,Variant Barcode,Image Src
        classic-tee,Classic Tee,T-Shirts,Size,Large,Colour,Red,TEE-L-RED,shopify,12,19.99,5901234123457,https://x/1.jpg
        classic-tee,,,,Large,,Blue,TEE-L-BLUE,shopify,0,19.99,4006381333931,
        classic-tee,,,,,,,,,,,,https://x/2.jpg
        classic-tee,,,,Small,,Red,,,,17.50,,
        mug,"Mug, ""Best Dad\"\"\",Kitchen,Title,Default Title,,,MUG-1,,,8.00,96385074,

        """
}
