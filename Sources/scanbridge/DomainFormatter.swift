import Foundation
import ScanBridgeModel

/// The human-readable text the CLI prints about catalog products, repair orders, cards and
/// customers, from the JSON the daemon answers with (docs/protocol.md "Data types"), so `lookup`,
/// `cards` and `customers` say things the same way.
struct DomainFormatter: Sendable {
    /// The zone of printed times: the person at the counter reads their own clock.
    var timeZone: TimeZone = .current

    // MARK: Products and orders

    /// `Cappuccino  3.50 GBP` and, indented, stock, SKU and GTIN; `embedded`, what the code
    /// that found it carries (a price or a weight).
    func product(_ product: JSONValue, embedded: JSONValue? = nil) -> String {
        let head = [text(product["name"]) ?? text(product["id"]) ?? "product", price(product, embedded: embedded)]
        var details: [[String]] = [["stock", stock(product)]]
        if let sku = text(product["sku"]) { details.append(["SKU", sku]) }
        if let gtin = text(product["gtin"]) {
            details.append(["GTIN", gtin])
        } else if let barcode = text(product["barcode"]) {
            details.append(["barcode", barcode])
        }
        if let id = text(product["id"]) { details.append(["id", id]) }
        return head.joined(separator: "  ") + "\n" + indented(TextTable.render(details))
    }

    /// `3.50 GBP`; for an item priced at the counter, the price its barcode carries,
    /// `12.34 GBP (price from the barcode)`: the catalog's (often 0.00 for such items) is not
    /// what the cashier charges.
    func price(_ product: JSONValue, embedded: JSONValue? = nil) -> String {
        if let amount = embedded?["price"].map(JSONText.scalar) {
            let currency = text(embedded?["currency"]) ?? text(product["currency"])
            return ([amount] + [currency].compactMap { $0 } + ["(price from the barcode)"]).joined(separator: " ")
        }
        return [text(product["price"]), text(product["currency"])].compactMap { $0 }.joined(separator: " ")
    }

    /// `in stock (50)`, `low (3 left)`, `out of stock (0), cannot be sold`, `not tracked`.
    func stock(_ product: JSONValue) -> String {
        let quantity = product["quantity"]?.intValue.map(String.init) ?? "?"
        let status =
            switch text(product["stockStatus"]) {
            case "inStock": "in stock (\(quantity))"
            case "low": "low (\(quantity) left)"
            case "outOfStock": "out of stock (\(quantity))"
            case "notTracked": "not tracked"
            case let other: other ?? "unknown"
            }
        return product["canSell"]?.boolValue == false ? status + ", cannot be sold" : status
    }

    /// `order RM-1001  in_progress  Ada Lovelace` and a table of its devices, the one the
    /// code named marked.
    func order(_ order: JSONValue, named device: JSONValue?) -> String {
        let reference = text(order["reference"]) ?? text(order["id"]) ?? "order"
        let client = text(order["clientName"]) ?? text(order["clientId"]).map { "client \($0)" }
        var out = (["order \(reference)", text(order["status"])] + [client]).compactMap { $0 }.joined(separator: "  ")
        if let id = text(order["id"]), id != reference { out += "  (\(id))" }
        let devices = order["devices"]?.arrayValue ?? []
        guard !devices.isEmpty else { return out + "\n  no devices booked in" }
        let namedID = device.flatMap { text($0["id"]) }
        let rows = devices.map { device in
            [
                text(device["id"]) ?? "?",
                [text(device["make"]), text(device["model"])].compactMap { $0 }.joined(separator: " "),
                text(device["serial"]) ?? "", text(device["status"]) ?? "",
                namedID != nil && text(device["id"]) == namedID ? "← this code" : "",
            ]
        }
        return out + "\n" + indented(TextTable.render(header: ["DEVICE", "MAKE/MODEL", "SERIAL", "STATUS", ""], rows: rows))
    }

    // MARK: Cards and customers

    /// `Card E5:F6 (04:A1:B2:C3:D4:E5:F6)`.
    func cardName(_ card: JSONValue) -> String {
        let display = text(card["uidDisplay"]) ?? text(card["uid"]) ?? "?"
        return text(card["displayName"]).map { "\($0) (\(display))" } ?? "card \(display)"
    }

    /// `Card E5:F6 (04:A1:…): blocked, wallet rN7n…`.
    func card(_ card: JSONValue) -> String {
        var line = cardName(card)
        if let status = text(card["status"]) { line += ": \(status)" }
        if text(card["security"]) == "secure" { line += ", secure" }
        if let wallet = text(card["walletAddress"]) { line += ", wallet \(wallet)" }
        return line
    }

    /// The `cards list` table; without the wallet column when all are one customer's.
    func cards(_ cards: [JSONValue], showingWallet: Bool = true) -> String {
        let header = ["UID", "NAME", "STATUS", "SECURITY"] + (showingWallet ? ["WALLET"] : []) + ["CREATED"]
        return TextTable.render(
            header: header,
            rows: cards.map { card in
                [
                    text(card["uidDisplay"]) ?? text(card["uid"]) ?? "?", text(card["displayName"]) ?? "",
                    text(card["status"]) ?? "", text(card["security"]) ?? "uid",
                ] + (showingWallet ? [text(card["walletAddress"]) ?? ""] : [])
                    + [time(text(card["createdAt"]))]
            })
    }

    /// `customer rN7n…` and, indented, what is known of them.
    func customer(_ customer: JSONValue) -> String {
        var details: [[String]] = []
        for key in ["name", "email", "phone"] {
            if let value = text(customer[key]) { details.append([key, value]) }
        }
        let milestones = [
            ("firstCardLinkedAt", "first card linked"), ("firstPaymentAt", "first payment"),
            ("autoSignEnabledAt", "auto-sign enabled"),
        ]
        for (key, label) in milestones {
            if let at = text(customer["milestones"]?[key]) { details.append([label, time(at)]) }
        }
        let head = "customer \(text(customer["walletAddress"]) ?? "?")"
        return details.isEmpty ? head : head + "\n" + indented(TextTable.render(details))
    }

    // MARK: Pieces

    /// An RFC 3339 time as `2026-11-21 09:40` on the local clock; the text as is when it is not one.
    func time(_ text: String?) -> String {
        guard let text else { return "" }
        guard let date = EventTime.parse(text) else { return text }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ number: Int?) -> String { (number ?? 0) < 10 ? "0\(number ?? 0)" : "\(number ?? 0)" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute))"
    }

    private func text(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue, !text.isEmpty else { return nil }
        return text
    }

    /// Every line of `text` indented by two spaces.
    func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }
}
