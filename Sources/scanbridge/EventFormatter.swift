import Foundation
import ScanBridgeModel

/// Every human-readable line the CLI prints about events, resolutions and devices, so
/// `watch`, `inject`, `devices` and `mock` say things the same way.
struct EventFormatter: Sendable {
    /// The zone of printed clock times: the person at the counter reads their own clock.
    var timeZone: TimeZone = .current

    // MARK: Events

    /// `#42  09:40:00.123  mock:till-1  barcode ean-13  5901234123457  → unhandled`
    func event(_ event: ScanEvent) -> String {
        var content = TerminalText.visible(event.text)
        if event.kind == .nfc {
            content = event.uidDisplay ?? event.uid ?? content
            if let cardType = event.cardType { content += " (\(cardType))" }
        }
        return "#\(event.seq)  \(clock(event.time))  \(event.device)  \(event.kind.rawValue) \(event.symbology)  "
            + "\(content)  → \(resolution(event.resolution))"
    }

    /// `unhandled`, `product-lookup found: Cappuccino 3.50 GBP`, `card-link blocked: Card E5:F6`…
    func resolution(_ resolution: Resolution) -> String {
        guard let handler = resolution.handler else { return resolution.status }
        let details = detailParts(resolution.details)
        let head = "\(handler) \(resolution.status)"
        return details.isEmpty ? head : head + ": " + details.joined(separator: ", ")
    }

    private func detailParts(_ details: [String: JSONValue]) -> [String] {
        var parts: [String] = []
        if let product = details["product"] {
            let price = DomainFormatter().price(product, embedded: details["embedded"])
            parts.append(
                ([product["name"]?.stringValue ?? product["id"]?.stringValue ?? "product"] + (price.isEmpty ? [] : [price]))
                    .joined(separator: " "))
            if let stock = product["stockStatus"]?.stringValue, stock == "low" || stock == "outOfStock" {
                parts.append(stock == "low" ? "low stock" : "out of stock")
            }
        }
        if let embedded = details["embedded"] {
            if let price = embedded["price"], details["product"] == nil {
                // The amount means nothing without its currency: "1234" is yen or pence.
                let currency = embedded["currency"]?.stringValue.map { " " + $0 } ?? ""
                parts.append("embedded price \(JSONText.scalar(price))\(currency)")
            }
            if let weight = embedded["weightKg"] { parts.append("\(JSONText.scalar(weight)) kg") }
        }
        if let card = details["card"] {
            parts.append(card["displayName"]?.stringValue ?? card["uidDisplay"]?.stringValue ?? "card")
            if let wallet = card["walletAddress"]?.stringValue { parts.append("wallet \(wallet)") }
        }
        if let name = details["customer"]?["name"]?.stringValue { parts.append(name) }
        if let order = details["order"] {
            let name = order["reference"]?.stringValue ?? order["id"]?.stringValue ?? "order"
            parts.append(
                ([name, order["status"]?.stringValue, order["clientName"]?.stringValue]
                    .compactMap { $0 }).joined(separator: " "))
        }
        if let device = details["device"] {
            let name = [device["make"]?.stringValue, device["model"]?.stringValue].compactMap { $0 }
            parts.append(
                (name.isEmpty ? ["device"] : name).joined(separator: " ")
                    + (device["serial"]?.stringValue.map { " #\($0)" } ?? ""))
        }
        for key in ["reason", "message"] {
            if let text = details[key]?.stringValue { parts.append(text) }
        }
        return parts
    }

    // MARK: Devices and subscriptions

    /// A device change: `+ device mock:till-1 (barcode) added`, with the reason when it failed.
    func device(_ device: Device, change: String) -> String {
        let mark =
            switch change {
            case "added", "attached": "+"
            case "removed", "detached": "-"
            default: "~"
            }
        var line = "\(mark) device \(device.id) (\(device.kind.rawValue)) \(change)"
        let leaving = change == "removed" || change == "detached"
        if change == "changed" || (device.state != .ready && !leaving) {
            line += ": \(device.state.rawValue)"
            if let error = device.error { line += " — \(error)" }
        }
        return line
    }

    /// `! events #5–#9 are older than the journal keeps and were skipped`
    func gap(from: Int64?, to: Int64?) -> String {
        let range =
            switch (from, to) {
            case (let from?, let to?) where from == to: "event #\(from) is"
            case (let from?, let to?): "events #\(from)–#\(to) are"
            default: "some events are"
            }
        return "! \(range) older than the journal keeps and were skipped"
    }

    /// The notice printed when the daemon dropped events for this slow reader.
    func overflow(dropped: Int64?, resumingAfter seq: UInt64?) -> String {
        let count = dropped.map { "\($0) event\($0 == 1 ? "" : "s")" } ?? "events"
        let resume = seq.map { "resubscribing from #\($0 + 1)" } ?? "resubscribing"
        return "! this watch fell behind and the daemon dropped \(count); \(resume) so none is missed"
    }

    /// The `devices` table: id, driver, kind, state, name.
    func table(_ devices: [Device]) -> String {
        TextTable.render(
            header: ["ID", "DRIVER", "KIND", "STATE", "NAME"],
            rows: devices.map { device in
                [
                    device.id, device.driver, device.kind.rawValue, device.state.rawValue,
                    device.name + (device.error.map { " (\($0))" } ?? "") + (device.hint.map { " (hint: \($0))" } ?? ""),
                ]
            })
    }

    // MARK: Pieces

    /// `09:40:00.123` in `timeZone`.
    func clock(_ date: Date) -> String {
        let millis =
            Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
            + Int64(timeZone.secondsFromGMT(for: date)) * 1000
        let ofDay = ((millis % 86_400_000) + 86_400_000) % 86_400_000
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let fraction = ofDay % 1000
        return "\(two(ofDay / 3_600_000)):\(two(ofDay / 60_000 % 60)):\(two(ofDay / 1000 % 60))."
            + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
    }
}
