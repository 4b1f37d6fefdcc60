import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension BrowserTests {
    /// The counter page's tools in headless Chromium against a real daemon's gateway: the
    /// lookup box, card linking with an operator's token and a reader's, and the device filter.
    /// Every form is used from the keyboard (WebDriver's Enter key) where a person would.
    @Suite(.heavy, .timeLimit(.minutes(5)))
    struct CounterPageToolsTests {
        static let enter = "\u{E007}"
        static let reader = "mock:counter-reader"
        static let wallet = "rN7nDemoWalletAda"
        /// A product name as a hostile catalog import could give it: text on the page, never HTML.
        static let hostileName = "<img src=x onerror=\"document.body.dataset.injected='yes'\">Tea"

        static let order: JSONValue = [
            "id": "ord_1001", "reference": "RM-1001", "status": "in_progress", "clientName": "Ada Lovelace",
            "devices": [["id": "dev_55", "make": "Apple", "model": "iPhone 13", "serial": "F2LXK0ABCD", "status": "diagnosing"]],
        ]

        /// The lookup's result row once it is for `code`: its status and text.
        static let lookupScript = """
            const row = document.querySelector('#lookup-result .scan');
            if (!row || row.querySelector('.scan-code').textContent !== arguments[0]) return null;
            return { status: row.dataset.status, text: row.textContent, title: row.querySelector('.scan-title').textContent };
            """

        /// Opens the page with `token` and waits for it to connect and learn its role.
        func open(_ daemon: CounterDaemon, token: String, role: String, on page: WebDriverSession) async throws {
            try await page.navigate(to: "\(daemon.origin)/#token=\(token)")
            try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
            try await page.wait(
                for: "the \(role) role", until: "return document.body.dataset.role === arguments[0]", [.string(role)])
        }

        /// Types `code` in the lookup box, presses Enter, and returns its result row.
        func lookUp(_ code: String, on page: WebDriverSession) async throws -> JSONValue {
            let input = try await page.find("#lookup-input")
            try await page.clear(input)
            try await page.type(code + Self.enter, into: input)
            return try await page.wait(for: "the lookup of \(code)", until: Self.lookupScript, [.string(code)])
        }

        /// Attaches the NFC reader and waits until the page offers it for linking.
        func attachReader(_ daemon: CounterDaemon, on page: WebDriverSession) async throws {
            _ = try await daemon.call("mock.attach", ["kind": "nfc", "id": "counter-reader", "name": "Counter reader"])
            try await page.wait(
                for: "the reader in the linking form",
                until: "return !!document.querySelector('#arm-reader option[value=\"\(Self.reader)\"]')")
        }

        /// `body` on a page of a daemon's, opened with an operator's token, once the linking form
        /// offers the reader, which is plugged in while the page is open: the form hears of it.
        func withLinkingPage(_ body: (CounterDaemon, WebDriverSession) async throws -> Void) async throws {
            let daemon = try await CounterDaemon.start()
            let operatorToken = try await daemon.token(role: "operator")
            try await withBrowser { page in
                try await open(daemon, token: operatorToken, role: "operator", on: page)
                try await attachReader(daemon, on: page)
                try await page.wait(
                    for: "the linking form to be enabled", until: "return !document.getElementById('arm-fields').disabled")
                try await body(daemon, page)
            }
        }

        func armState(_ page: WebDriverSession, is state: String) async throws -> String {
            try await page.wait(
                for: "the linking to say \(state)",
                until: "return document.getElementById('arm-status').dataset.state === arguments[0]", [.string(state)])
            return try await page.text(of: page.find("#arm-status"))
        }

        @Test func looksUpProductsAndOrdersWithoutAScan() async throws {
            let daemon = try await CounterDaemon.start()
            _ = try await daemon.call("orders.upsert", ["order": Self.order])
            _ = try await daemon.call(
                "products.upsert",
                ["product": ["name": .string(Self.hostileName), "price": "2.10", "currency": "GBP", "barcode": "9780201379624"]])
            try await withBrowser { page in
                try await open(daemon, token: daemon.secret, role: "reader", on: page)

                let found = try await lookUp("5901234123457", on: page)
                #expect(found["status"] == "found")
                #expect(found["title"] == "Cappuccino" && found["text"]?.stringValue?.contains("£3.50") == true, "\(found)")

                let unknown = try await lookUp("0000000000000", on: page)
                #expect(unknown["status"] == "not_found" && unknown["title"] == "Unknown code", "\(unknown)")

                let invalid = try await lookUp("5901234123450", on: page)
                #expect(invalid["status"] == "invalid", "\(invalid)")
                #expect(invalid["text"]?.stringValue?.contains("check digit") == true, "\(invalid)")

                let order = try await lookUp("RM-1001", on: page)
                #expect(order["status"] == "found" && order["title"] == "Order RM-1001", "\(order)")
                #expect(order["text"]?.stringValue?.contains("Ada Lovelace") == true, "\(order)")

                let hostile = try await lookUp("9780201379624", on: page)
                #expect(hostile["title"]?.stringValue == Self.hostileName, "the name is shown as text")
                let injected = try await page.execute(
                    "return !!document.querySelector('#lookup-result img') || !!document.body.dataset.injected")
                #expect(injected == false, "a product's name never becomes HTML")

                // Lookups journal nothing: the scans stay as they were.
                #expect(try await daemon.call("events.recent")["events"] == [])
                #expect(try await page.execute("return document.querySelectorAll('#scans [data-seq]').length") == 0)
            }
        }

        @Test func anOperatorArmsAReaderAndSeesTheCardItLinked() async throws {
            try await withLinkingPage { daemon, page in
                try await daemon.inject("5901234123457")
                try await daemon.inject("4006381333931")
                _ = try await lookUp("5901234123457", on: page)

                try await page.type("Ada's keyring", into: page.find("#arm-name"))
                try await page.type(Self.wallet + Self.enter, into: page.find("#arm-wallet"))
                let waiting = try await armState(page, is: "waiting")
                #expect(waiting.contains("Counter reader") && waiting.contains(Self.wallet), "\(waiting)")
                #expect(try await page.execute("return document.activeElement.id") == "arm-cancel", "Cancel has the focus")

                let tap = try await daemon.tap("04A1B2C3D4E5F6", on: Self.reader)
                #expect(tap["status"] == "linked", "\(tap)")
                let linked = try await armState(page, is: "linked")
                #expect(linked.contains("Ada's keyring") && linked.contains("04:A1:B2:C3:D4:E5:F6"), "\(linked)")
                #expect(linked.contains(Self.wallet), "\(linked)")
                let card = try await daemon.call("cards.get", ["uid": "04A1B2C3D4E5F6"])
                #expect(card["card"]?["walletAddress"] == .string(Self.wallet))
                try await page.wait(
                    for: "the tap's row",
                    until: "return !!document.querySelector('#scans [data-kind=\"nfc\"][data-status=\"linked\"]')")

                let png = try await page.screenshot()
                #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
                // docs/ keeps the picture; a test run rewrites it only when asked, so that running
                // the tests leaves the checkout as it was.
                if ProcessInfo.processInfo.environment["SCANBRIDGE_SCREENSHOT"] == "1" {
                    try png.write(to: repositoryRoot.appendingPathComponent("docs/counter-page.png"))
                }

                // Armed again, then cancelled: the next tap links nothing.
                try await page.clear(page.find("#arm-wallet"))
                try await page.type("rSomeoneElse" + Self.enter, into: page.find("#arm-wallet"))
                _ = try await armState(page, is: "waiting")
                try await page.click(page.find("#arm-cancel"))
                _ = try await armState(page, is: "cancelled")
                #expect(try await daemon.tap("04000002", on: Self.reader)["status"] == "unknown", "disarmed")
            }
        }

        /// Ticked "Secure card": the reader is armed for a secure link, which only a tap that
        /// proves the card makes (`PCSCSecureCardTests` links one through pcscd); a mock's read of
        /// a UID alone links nothing, and the page says why and keeps waiting.
        @Test func aSecureLinkWaitsForATapThatProvesTheCard() async throws {
            try await withLinkingPage { daemon, page in
                try await page.click(page.find("#arm-secure"))
                try await page.type(Self.wallet + Self.enter, into: page.find("#arm-wallet"))
                _ = try await armState(page, is: "waiting")

                let tap = try await daemon.tap("045EC012345678", on: Self.reader)
                #expect(tap["status"] == "unverified" && tap["reason"] == "no-message", "\(tap)")
                try await page.wait(
                    for: "the page to say the tap did not prove the card",
                    until: "return document.getElementById('arm-status').textContent.includes('did not prove')")
                #expect(try await armState(page, is: "waiting").contains("no-message"))
                await #expect(throws: (any Error).self, "nothing was linked") {
                    try await daemon.call("cards.get", ["uid": "045EC012345678"])
                }
            }
        }

        @Test func aReaderTokenCannotArmAndThePageSaysWhy() async throws {
            let daemon = try await CounterDaemon.start()
            try await withBrowser { page in
                try await open(daemon, token: daemon.secret, role: "reader", on: page)
                try await attachReader(daemon, on: page)
                #expect(try await page.execute("return document.getElementById('arm-fields').disabled") == true)
                let reason = try await page.text(of: page.find("#arm-reason"))
                #expect(reason.contains("operator"), "\(reason)")

                // Forced past the page's own refusal, the daemon refuses, and the page says so.
                try await page.execute("document.getElementById('arm-fields').disabled = false")
                try await page.type(Self.wallet + Self.enter, into: page.find("#arm-wallet"))
                let refused = try await armState(page, is: "refused")
                #expect(refused.contains("refused"), "\(refused)")
                #expect(try await page.execute("return document.getElementById('arm-fields').disabled") == true)
                #expect(try await daemon.tap("04A1B2C3D4E5F6", on: Self.reader)["status"] == "unknown", "nothing was armed")
            }
        }

        /// The page's scan rows, newest first, that the filter shows: seq and device.
        static let shownRowsScript = """
            return [...document.querySelectorAll('#scans [data-seq]')].filter(row => row.offsetParent !== null)
              .map(row => ({ seq: Number(row.dataset.seq), device: row.dataset.device }))
            """

        @Test func theDeviceFilterShowsOneDevicesScansAndSurvivesAReload() async throws {
            let daemon = try await CounterDaemon.start()
            try await withBrowser { page in
                try await open(daemon, token: daemon.secret, role: "reader", on: page)
                // A USB device names itself: its name is text on the page, never HTML.
                let hostile = "<img src=x onerror=\"document.body.dataset.injected='yes'\">Till 2"
                _ = try await daemon.call("mock.attach", ["kind": "barcode", "id": "till-2", "name": .string(hostile)])
                try await page.wait(
                    for: "till 2 in the filter",
                    until: "return !!document.querySelector('#device-filter option[value=\"mock:till-2\"]')")
                try await page.click(page.find("#device-filter option[value=\"mock:till-2\"]"))
                let address = try await page.currentURL()
                #expect(address.hasSuffix("#device=mock%3Atill-2") && !address.contains(daemon.secret), "\(address)")

                var tillTwo: [Int64] = []
                try await daemon.inject("5901234123457")
                tillTwo.append(try await daemon.inject("4006381333931", device: "mock:till-2"))
                try await daemon.inject("0000000000000")
                tillTwo.append(try await daemon.inject("5901234123457", device: "mock:till-2"))
                try await page.wait(for: "four rows", until: "return document.querySelectorAll('#scans [data-seq]').length === 4")
                var shown = try await page.execute(Self.shownRowsScript).arrayValue ?? []
                #expect(shown.compactMap { $0["seq"]?.intValue } == tillTwo.reversed(), "\(shown)")

                // A reload keeps the filter, from the fragment, and the token, from the session.
                try await page.reload()
                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                try await page.wait(
                    for: "the recent scans", until: "return document.querySelectorAll('#scans [data-seq]').length === 4")
                #expect(try await page.execute("return document.getElementById('device-filter').value") == "mock:till-2")
                shown = try await page.execute(Self.shownRowsScript).arrayValue ?? []
                #expect(shown.compactMap { $0["seq"]?.intValue } == tillTwo.reversed(), "\(shown)")
                #expect(!(try await page.currentURL()).contains(daemon.secret))

                _ = try await daemon.call("mock.detach", ["id": "mock:till-2"])
                try await page.wait(
                    for: "till 2 to show as unplugged in the filter",
                    until:
                        "return document.querySelector('#device-filter option[value=\"mock:till-2\"]')?.textContent.endsWith('(unplugged)')"
                )
                try await page.click(page.find("#device-filter option[value=\"\"]"))
                shown = try await page.execute(Self.shownRowsScript).arrayValue ?? []
                #expect(shown.count == 4, "every device's scans: \(shown)")

                let name = try await page.text(of: page.find("[data-device-id=\"mock:till-2\"] .device-name"))
                #expect(name == hostile, "the name is shown as text")
                let injected = try await page.execute(
                    "return !!document.querySelector('#devices img, #device-filter img') || !!document.body.dataset.injected")
                #expect(injected == false, "a device's name never becomes HTML")

                // An address pasted into the open tab loads nothing when only its fragment differs:
                // the page takes the token and the device from it all the same.
                try await page.navigate(to: "\(daemon.origin)/#token=\(daemon.secret)&device=mock%3Atill-1")
                try await page.wait(
                    for: "the filter to show till 1",
                    until: "return document.getElementById('device-filter').value === 'mock:till-1'")
                let pasted = try await page.currentURL()
                #expect(pasted.hasSuffix("/#device=mock%3Atill-1") && !pasted.contains(daemon.secret), "\(pasted)")
                shown = try await page.execute(Self.shownRowsScript).arrayValue ?? []
                #expect(shown.count == 2 && shown.allSatisfy { $0["device"] == "mock:till-1" }, "\(shown)")
            }
        }
    }
}
