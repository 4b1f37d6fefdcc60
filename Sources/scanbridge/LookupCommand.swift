import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge lookup CODE`: the product and the repair order a code names, as a scan of it
/// would find them.
struct LookupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Find the catalog product or the repair order a barcode, SKU or QR text names.",
        discussion: """
            Asks products.lookup and orders.lookup at once, and prints what they found. Exits with \
            status 0 when either found something, 1 when neither did.
            Examples:
              scanbridge lookup 5901234123457
              scanbridge lookup RM-1001
              scanbridge lookup 'repairminder://devices/dev_55'
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "A barcode (EAN, UPC, GTIN), a SKU, an order reference, or an order or device QR text.")
    var code: String

    @Flag(help: "Print both answers as one JSON object: {\"product\": …, \"order\": …}.")
    var json = false

    func run() async throws {
        let found = try await connection.withClient { client in
            let params: JSONValue = ["code": .string(code)]
            async let productAnswer = client.call("products.lookup", params)
            async let orderAnswer = client.call("orders.lookup", params)
            let (product, order) = try await (productAnswer, orderAnswer)
            let found = product["status"]?.stringValue == "found" || order["status"]?.stringValue == "found"
            if json {
                await Console.out(JSONText.pretty(["product": product, "order": order]))
            } else {
                await print(product: product, order: order)
            }
            return found
        }
        if !found { throw ExitStatus.negative }
    }

    private func print(product: JSONValue, order: JSONValue) async {
        let formatter = DomainFormatter()
        var blocks: [String] = []
        if product["status"]?.stringValue == "found", let found = product["product"] {
            blocks.append(formatter.product(found, embedded: product["embedded"]))
        }
        if order["status"]?.stringValue == "found", let found = order["order"] {
            blocks.append(formatter.order(found, named: order["device"]))
        }
        guard blocks.isEmpty else {
            await Console.out(blocks.joined(separator: "\n\n"))
            return
        }
        if product["status"]?.stringValue == "invalid", let reason = product["reason"]?.stringValue {
            await Console.error(reason)
        } else {
            await Console.error("no product or order for \(code)")
        }
    }
}
