import ScanBridgeClient
import ScanBridgeModel
import Testing

@Suite("Import presets")
struct ImportPresetTests {
    /// A Shopify product export: a T-shirt in two sizes and colours (the later rows carry
    /// only Handle and variant columns), an extra image row, a one-variant mug whose title
    /// holds a comma and a quote and whose description a line break, a BOM, CRLF.
    static let shopify = """
        \u{FEFF}Handle,Title,Body (HTML),Vendor,Product Category,Type,Tags,Published,Option1 Name,Option1 Value,\
        Option1 Linked To,Option2 Name,Option2 Value,Option2 Linked To,Option3 Name,Option3 Value,Option3 Linked To,\
        Variant SKU,Variant Grams,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,\
        Variant Fulfillment Service,Variant Price,Variant Compare At Price,Variant Requires Shipping,Variant Taxable,\
        Variant Barcode,Image Src,Image Position,Image Alt Text,Gift Card,SEO Title,SEO Description,Variant Image,\
        Variant Weight Unit,Variant Tax Code,Cost per item,Status\r
        classic-tee,Classic Tee,"<p>Soft cotton,\r
        washed.</p>",Acme,Apparel & Accessories > Clothing,T-Shirts,"summer, cotton",true,Size,Large,,Colour,Red,,,,,\
        TEE-L-RED,200,shopify,12,deny,manual,19.99,,true,true,'5901234123457,https://cdn.example/tee.jpg,1,,false,,,,g,,8.00,active\r
        classic-tee,,,,,,,,,Large,,,Blue,,,,,TEE-L-BLUE,200,shopify,0,continue,manual,19.99,,true,true,4006381333931,,,,,,,,g,,8.00,\r
        classic-tee,,,,,,,,,,,,,,,,,,,,,,,,,,,,https://cdn.example/tee-back.jpg,2,,,,,,,,,\r
        classic-tee,,,,,,,,,Small,,,Red,,,,,,200,,,deny,manual,17.50,,true,true,,,,,,,,,g,,8.00,\r
        mug,"Mug, \"\"Best Dad\"\"\",<p>Ceramic</p>,Acme,,Kitchen,,true,Title,Default Title,,,,,,,,MUG-1,350,,,deny,manual,8.00,,\
        true,true,96385074,https://cdn.example/mug.jpg,1,,false,,,,g,,,active\r

        """

    static func products(_ text: String, _ preset: ImportPreset, size: Int = 7) async throws -> [ImportItem] {
        try await CSVDialectTests.records(Array(text.utf8), size: size, options: CSVImportOptions(preset: preset))
    }

    @Test(arguments: [3, 64, 100_000])
    func shopifyVariantsBecomeProducts(chunkSize: Int) async throws {
        let items = try await Self.products(Self.shopify, .shopify, size: chunkSize)
        #expect(
            items == [
                .record(
                    ImportRecord(
                        object: [
                            "name": "Classic Tee", "price": "19.99", "sku": "TEE-L-RED", "barcode": "5901234123457",
                            "category": "T-Shirts", "variant": "Large / Red", "parentId": "classic-tee", "trackStock": true,
                            "quantity": 12, "allowNegativeStock": false,
                        ], lines: SourceLines(line: 2))),
                .record(
                    ImportRecord(
                        object: [
                            "name": "Classic Tee", "price": "19.99", "sku": "TEE-L-BLUE", "barcode": "4006381333931",
                            "category": "T-Shirts", "variant": "Large / Blue", "parentId": "classic-tee", "trackStock": true,
                            "quantity": 0, "allowNegativeStock": true,
                        ], lines: SourceLines(line: 4))),
                .record(
                    ImportRecord(
                        object: [
                            "id": "shopify_classic-tee/Small/Red", "name": "Classic Tee", "price": "17.50",
                            "category": "T-Shirts", "variant": "Small / Red", "parentId": "classic-tee",
                            "trackStock": false, "allowNegativeStock": false,
                        ], lines: SourceLines(line: 6))),
                .record(
                    ImportRecord(
                        object: [
                            "name": "Mug, \"Best Dad\"", "price": "8.00", "sku": "MUG-1", "barcode": "96385074",
                            "category": "Kitchen", "trackStock": false, "allowNegativeStock": false,
                        ], lines: SourceLines(line: 7))),
            ])
    }

    @Test func shopifyRowsPassTheProductCheck() async throws {
        let target = ImportTarget.products()
        for case .record(let record) in try await Self.products(Self.shopify, .shopify) {
            #expect(throws: Never.self) { try target.validate(JSONFields(record.object)) }
        }
    }

    /// A WooCommerce export: a simple product with a GTIN, a variable hoodie (no product of
    /// its own) with two variations (one without SKU), a grouped product, a name with a line
    /// break and a comma, and the exporter's quoted "GTIN, UPC, EAN, or ISBN" header.
    static let woocommerce = """
        ID,Type,SKU,"GTIN, UPC, EAN, or ISBN",Name,Published,"Is featured?","Visibility in catalog",\
        "Short description",Description,"Date sale price starts","Date sale price ends","Tax status","Tax class",\
        "In stock?",Stock,"Low stock amount","Backorders allowed?","Sold individually?","Weight (kg)",\
        "Allow customer reviews?","Purchase note","Sale price","Regular price",Categories,Tags,"Shipping class",\
        Images,Parent,"Grouped products",Upsells,Cross-sells,"External URL","Button text",Position,\
        "Attribute 1 name","Attribute 1 value(s)","Attribute 1 visible","Attribute 1 global",\
        "Attribute 2 name","Attribute 2 value(s)","Attribute 2 visible","Attribute 2 global"
        10,simple,BEANIE-1,5901234123457,"Beanie, wool",1,0,visible,"Warm
        hat",,,,taxable,,1,25,3,0,0,0.1,1,,15,18,"Clothing > Accessories, Sale",,,,,,,,,,0,,,,,,,,
        20,variable,HOODIE,,Hoodie,1,0,visible,,,,,taxable,,1,,,0,0,,1,,,,Clothing > Hoodies,,,,,,,,,,0,\
        Colour,"Blue, Red",1,1,Size,"M, L",1,1
        21,variation,HOODIE-BLUE-M,4006381333931,"Hoodie - Blue, M",1,0,visible,,,,,taxable,parent,1,4,,notify,0,,0,,,42,,,,,\
        id:20,,,,,,1,Colour,Blue,,1,Size,M,,1
        22,variation,,,"Hoodie - Red, L",1,0,visible,,,,,taxable,parent,0,,,0,0,,0,,,42,,,,,HOODIE,,,,,,2,Colour,Red,,1,\
        Size,L,,1
        30,grouped,SET-1,,Gift set,1,0,visible,,,,,taxable,,1,,,0,0,,1,,,,,,,,,"10, 21",,,,,0,,,,,,,,

        """

    @Test(arguments: [5, 100_000])
    func wooCommerceSimpleProductsAndVariationsBecomeProducts(chunkSize: Int) async throws {
        let items = try await Self.products(Self.woocommerce, .woocommerce, size: chunkSize)
        #expect(
            items == [
                .record(
                    ImportRecord(
                        object: [
                            "name": "Beanie, wool", "price": "18", "sku": "BEANIE-1", "barcode": "5901234123457",
                            "category": "Clothing > Accessories", "trackStock": true, "quantity": 25,
                            "lowStockThreshold": 3, "allowNegativeStock": false,
                        ], lines: SourceLines(line: 2))),
                .record(
                    ImportRecord(
                        object: [
                            "name": "Hoodie - Blue, M", "price": "42", "sku": "HOODIE-BLUE-M", "barcode": "4006381333931",
                            "category": "Clothing > Hoodies", "parentId": "id:20", "variant": "Blue / M",
                            "trackStock": true, "quantity": 4, "allowNegativeStock": true,
                        ], lines: SourceLines(line: 5))),
                .record(
                    ImportRecord(
                        object: [
                            "id": "woo_22", "name": "Hoodie - Red, L", "price": "42", "category": "Clothing > Hoodies",
                            "parentId": "HOODIE", "variant": "Red / L", "trackStock": false,
                            "allowNegativeStock": false,
                        ], lines: SourceLines(line: 6))),
            ])
    }

    @Test func shopifysNewerHeadersAreReadToo() async throws {
        let text = """
            Title,URL handle,Type,Option1 name,Option1 value,SKU,Barcode,Price,Inventory tracker,Inventory quantity,\
            Continue selling when out of stock
            Oat milk,oat-milk,Dairy,Size,1 l,OAT-1,4006381333931,2.20,shopify,7,TRUE

            """
        let items = try await Self.products(text, .shopify)
        #expect(
            items == [
                .record(
                    ImportRecord(
                        object: [
                            "name": "Oat milk", "price": "2.20", "sku": "OAT-1", "barcode": "4006381333931",
                            "category": "Dairy", "variant": "1 l", "parentId": "oat-milk", "trackStock": true,
                            "quantity": 7, "allowNegativeStock": true,
                        ], lines: SourceLines(line: 2)))
            ])
    }

    @Test func theWrongPresetIsNamed() async throws {
        let problem = await #expect(throws: ImportProblem.self) {
            _ = try await Self.products(Self.woocommerce, .shopify)
        }
        #expect(problem?.message.hasPrefix("this is not a shopify product export: it has no 'Handle' column") == true)
    }
}
