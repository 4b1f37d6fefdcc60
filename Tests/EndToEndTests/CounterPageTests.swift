import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension BrowserTests {
    /// The counter page (Web/) in headless Chromium against a real daemon's gateway.
    @Suite(.heavy, .timeLimit(.minutes(5)))
    struct CounterPageTests {
        /// The page's scan rows, newest first: seq, status and text.
        static let rowsScript = """
            return [...document.querySelectorAll('#scans [data-seq]')].map(row => ({
              seq: Number(row.dataset.seq), status: row.dataset.status, text: row.textContent }))
            """

        @Test func showsScansInOrderAcrossARestartAndADetach() async throws {
            let daemon = try await CounterDaemon.start()
            try await withBrowser { page in
                try await page.navigate(to: "\(daemon.origin)/#token=\(daemon.secret)")

                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                #expect(!(try await page.currentURL()).contains(daemon.secret), "the token stays in the address bar")
                try await page.wait(
                    for: "the till to show as ready",
                    until: "return document.querySelector('[data-device-id=\"mock:till-1\"]')?.dataset.state === 'ready'")

                var seqs: [Int64] = []
                seqs.append(try await daemon.inject("5901234123457"))  // Cappuccino, GBP
                seqs.append(try await daemon.inject("4006381333931"))  // Matcha, JPY: no decimals
                seqs.append(try await daemon.inject("0000000000000"))  // in no catalog
                let rows = try await waitForRows(seqs.count, on: page)
                #expect(rows.map(\.seq) == seqs.reversed(), "newest first")
                #expect(rows[2].text.contains("Cappuccino") && rows[2].text.contains("£3.50") && rows[2].text.contains("50"))
                #expect(rows[1].text.contains("Matcha") && rows[1].text.contains("¥500") && !rows[1].text.contains("500.00"))
                #expect(rows[0].status != "found")

                // The daemon goes away and comes back: the page reconnects by itself, and the scans
                // made meanwhile appear once each, in order.
                try await daemon.restart()
                seqs.append(try await daemon.inject("5901234123457"))
                seqs.append(try await daemon.inject("4006381333931"))
                let after = try await waitForRows(seqs.count, on: page)
                #expect(after.map(\.seq) == seqs.reversed(), "every scan once, newest first")
                try await page.wait(for: "the page to reconnect", until: "return document.body.dataset.connection === 'open'")

                _ = try await daemon.call("mock.detach", ["id": "mock:till-1"])
                try await page.wait(
                    for: "the till to show as gone",
                    until: "return document.querySelector('[data-device-id=\"mock:till-1\"]')?.dataset.state === 'gone'")
            }
        }

        /// An item priced at the counter reads as the price its label carries, which is what
        /// the cashier charges, not the catalog's 0.00.
        @Test func showsAnItemPricedAtTheCounterAtItsLabelsPrice() async throws {
            let daemon = try await CounterDaemon.start()
            try await withBrowser { page in
                try await page.navigate(to: "\(daemon.origin)/#token=\(daemon.secret)")
                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                let seq = try await daemon.inject("2011122912346")
                let rows = try await waitForRows(1, on: page)
                #expect(rows.first?.seq == seq)
                let text = rows.first?.text ?? ""
                #expect(text.contains("Cheddar") && text.contains("£12.34") && text.contains("price from the barcode"), "\(text)")
                #expect(!text.contains("0.00"), "\(text)")
            }
        }

        /// A secure card read by its UID alone, as a copy of it would be, shows as a refusal
        /// that says why, not as its customer.
        @Test func showsASecureCardReadWithoutItsMessageAsNotVerified() async throws {
            let daemon = try await CounterDaemon.start()
            _ = try await daemon.call("mock.attach", ["kind": "nfc", "id": "counter-reader"])
            _ = try await daemon.call(
                "cards.link", ["uid": "045EC012345678", "walletAddress": "rGrace", "security": "secure"])
            try await withBrowser { page in
                try await page.navigate(to: "\(daemon.origin)/#token=\(daemon.secret)")
                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                let tap = try await daemon.tap("045EC012345678", on: "mock:counter-reader")
                #expect(tap["status"] == "unverified", "\(tap)")
                let rows = try await waitForRows(1, on: page)
                #expect(rows.first?.status == "unverified")
                let text = rows.first?.text ?? ""
                #expect(text.contains("Card not verified") && text.contains("a copy of the card?"), "\(text)")
                #expect(!text.contains("rGrace"), "no one is identified: \(text)")
            }
        }

        @Test func asksForATokenWhenItHasNone() async throws {
            let daemon = try await CounterDaemon.start()
            try await withBrowser(width: 390, height: 844) { page in
                try await page.navigate(to: "\(daemon.origin)/")
                try await page.wait(for: "the token form", until: "return !document.getElementById('token-entry').hidden")
                try await page.type(daemon.secret, into: page.find("#token-input"))
                try await page.click(page.find("#token-form button"))
                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                let seq = try await daemon.inject("5901234123457")
                try await page.wait(for: "scan \(seq)", until: "return !!document.querySelector('[data-seq=\"\(seq)\"]')")
            }
        }

        struct Row: Sendable {
            let seq: Int64
            let status: String
            let text: String
        }

        func waitForRows(_ count: Int, on page: WebDriverSession) async throws -> [Row] {
            try await page.wait(
                for: "\(count) scan rows", until: "return document.querySelectorAll('#scans [data-seq]').length >= \(count)")
            let value = try await page.execute(Self.rowsScript)
            return (value.arrayValue ?? []).map {
                Row(
                    seq: $0["seq"]?.intValue ?? -1, status: $0["status"]?.stringValue ?? "",
                    text: $0["text"]?.stringValue ?? "")
            }
        }
    }
}
