import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension BrowserTests {
    /// The counter page and scanbridge.mjs in headless Chromium, loaded from the repository's
    /// files with `FakeGateway` in place of the daemon: what the page shows and how the client
    /// reconnects, wherever Chromium is installed.
    @Suite(.heavy, .timeLimit(.minutes(3)))
    struct CounterPageFakeGatewayTests {
        static let page = repositoryRoot.appendingPathComponent("Web/index.html").absoluteString

        static let cappuccino: JSONValue = [
            "device": "mock:till-1", "driver": "mock", "kind": "barcode", "symbology": "ean-13", "text": "5901234123457",
            "resolution": [
                "handler": "product-lookup", "status": "found", "gtin": "05901234123457",
                "product": [
                    "id": "prod_1", "name": "Cappuccino", "price": "3.50", "currency": "GBP", "quantity": 50,
                    "trackStock": true, "stockStatus": "inStock", "canSell": true,
                ],
            ],
        ]

        static func product(_ name: String, price: String, currency: String) -> JSONValue {
            [
                "device": "mock:till-1", "driver": "mock", "kind": "barcode", "text": "123",
                "resolution": [
                    "handler": "product-lookup", "status": "found",
                    "product": [
                        "id": .string(name), "name": .string(name), "price": .string(price),
                        "currency": .string(currency), "stockStatus": "notTracked",
                    ],
                ],
            ]
        }

        static let unknownCode: JSONValue = [
            "device": "mock:till-1", "driver": "mock", "kind": "barcode", "symbology": "ean-13", "text": "0000000000000",
            "resolution": ["handler": "product-lookup", "status": "not_found"],
        ]

        static let card: JSONValue = [
            "device": "mock:reader-1", "driver": "mock", "kind": "nfc", "uid": "04A1B2C3D4E5F6",
            "uidDisplay": "04:A1:B2:C3:D4:E5:F6",
            "resolution": [
                "handler": "card-link", "status": "identified",
                "card": ["uid": "04A1B2C3D4E5F6", "displayName": "Card 5:F6", "walletAddress": "rN7n", "status": "active"],
                "customer": ["walletAddress": "rN7n", "name": "Ada Lovelace"],
            ],
        ]

        static let order: JSONValue = [
            "device": "mock:till-1", "driver": "mock", "kind": "barcode", "symbology": "qr", "text": "ORDER:ord_1001",
            "resolution": [
                "handler": "order-lookup", "status": "found",
                "order": ["id": "ord_1001", "reference": "RM-1001", "status": "in_progress", "clientName": "Grace Hopper"],
            ],
        ]

        static let till: JSONValue = [
            "id": "mock:till-1", "driver": "mock", "kind": "barcode", "name": "Till 1", "state": "ready",
        ]

        /// Runs `body` on the counter page, loaded from the repository with `FakeGateway` as its daemon.
        func withPage(
            token: String? = "sbt_test", width: Int = 1024, height: Int = 768,
            _ body: (WebDriverSession) async throws -> Void
        ) async throws {
            // Module scripts load from file: only with this; the page is otherwise as served.
            try await withBrowser(width: width, height: height, extraArguments: ["--allow-file-access-from-files"]) {
                session in
                try await session.addScriptOnNewDocument(
                    FakeGateway.script + "\nfakeDaemon.devices.set('mock:till-1', \(Self.json(Self.till)));")
                try await session.navigate(to: Self.page + (token.map { "#token=\($0)" } ?? ""))
                try await body(session)
            }
        }

        static func json(_ value: JSONValue) -> String {
            String(decoding: (try? JSONEncoder().encode(value)) ?? Data("null".utf8), as: UTF8.self)
        }

        func inject(_ event: JSONValue, on page: WebDriverSession) async throws -> Int64 {
            let seq = try await page.execute("return fakeDaemon.inject(arguments[0])", [event])
            return seq.intValue ?? -1
        }

        func rows(_ page: WebDriverSession) async throws -> [(seq: Int64, status: String, text: String)] {
            let value = try await page.execute(CounterPageTests.rowsScript)
            return (value.arrayValue ?? []).map {
                ($0["seq"]?.intValue ?? -1, $0["status"]?.stringValue ?? "", $0["text"]?.stringValue ?? "")
            }
        }

        /// The wire gives an amount with its currency's ISO 4217 decimals; a browser's own idea of
        /// a currency's decimals (the Iraqi dinar's, often none) neither rounds nor pads it.
        @Test(arguments: [("1.250", "IQD", "1.250"), ("500", "JPY", "500"), ("0.005", "BHD", "0.005")])
        func anAmountKeepsTheDecimalsTheWireGivesIt(price: String, currency: String, shown: String) async throws {
            try await withPage { page in
                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                _ = try await inject(Self.product("Dates", price: price, currency: currency), on: page)
                try await page.wait(for: "a row", until: "return document.querySelectorAll('#scans [data-seq]').length === 1")
                let text = try await rows(page).first?.text ?? ""
                #expect(text.contains(shown), "\(price) \(currency): \(text)")
            }
        }

        @Test func showsEachKindOfScanNewestFirst() async throws {
            try await withPage { page in
                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                #expect(!(try await page.currentURL()).contains("sbt_test"), "the token is taken out of the address")
                #expect(try await page.execute("return sessionStorage.getItem('scanbridge.token')").stringValue == "sbt_test")
                try await page.wait(
                    for: "the till", until: "return document.querySelector('[data-device-id=\"mock:till-1\"]')?.dataset.state")

                for event in [
                    Self.cappuccino, Self.product("Matcha", price: "500", currency: "JPY"),
                    Self.product("Dates", price: "1.250", currency: "KWD"), Self.unknownCode, Self.card, Self.order,
                ] {
                    _ = try await inject(event, on: page)
                }
                try await page.wait(for: "six rows", until: "return document.querySelectorAll('#scans [data-seq]').length === 6")
                let shown = try await rows(page)
                #expect(shown.map(\.seq) == [6, 5, 4, 3, 2, 1])
                #expect(shown[5].text.contains("Cappuccino") && shown[5].text.contains("£3.50"))
                #expect(shown[5].text.contains("in stock: 50"))
                #expect(shown[4].text.contains("¥500") && !shown[4].text.contains("¥500.00"), "yen has no decimals")
                #expect(shown[3].text.contains("1.250"), "the dinar has three decimals: \(shown[3].text)")
                #expect(shown[2].status == "not_found" && shown[2].text.contains("Unknown code"))
                #expect(shown[1].text.contains("Ada Lovelace") && shown[1].text.contains("Card 5:F6"))
                #expect(shown[0].text.contains("Order RM-1001") && shown[0].text.contains("Grace Hopper"))
                #expect(try await Self.fitsWidth(page), "no sideways scrolling on a counter screen")
                let live = try await page.execute("return document.getElementById('scans').getAttribute('aria-live')")
                #expect(live.stringValue == "polite")

                try await page.execute(
                    "fakeDaemon.setDevice({...fakeDaemon.devices.get('mock:till-1'), state: 'gone'}, 'device.removed')")

                try await page.wait(
                    for: "the till to show as gone",
                    until: "return document.querySelector('[data-device-id=\"mock:till-1\"]')?.dataset.state === 'gone'")
            }
        }

        /// The page needs no sideways scrolling at its window's width.
        static func fitsWidth(_ page: WebDriverSession) async throws -> Bool {
            try await page.execute("return document.documentElement.scrollWidth <= window.innerWidth").boolValue == true
        }

        @Test func reconnectsAndMissesNothing() async throws {
            try await withPage { page in
                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                _ = try await inject(Self.cappuccino, on: page)
                _ = try await inject(Self.unknownCode, on: page)
                try await page.wait(for: "two rows", until: "return document.querySelectorAll('#scans [data-seq]').length === 2")

                // The daemon goes away; scans made while the page is cut off must appear once it is back.
                try await page.execute("fakeDaemon.stop()")
                try await page.wait(
                    for: "the page to say it reconnects", until: "return document.body.dataset.connection === 'reconnecting'")
                _ = try await inject(Self.card, on: page)
                _ = try await inject(Self.order, on: page)
                try await page.execute("fakeDaemon.start()")
                try await page.wait(for: "the page to reconnect", until: "return document.body.dataset.connection === 'open'")
                _ = try await inject(Self.cappuccino, on: page)
                try await page.wait(for: "five rows", until: "return document.querySelectorAll('#scans [data-seq]').length >= 5")
                #expect(try await rows(page).map(\.seq) == [5, 4, 3, 2, 1], "every scan once, newest first")
                let since = try await page.execute("return fakeDaemon.subscribes")
                #expect(since.arrayValue?.last?.intValue == 2, "it resubscribed after the last scan it had: \(since)")
            }
        }

        @Test func asksForATokenAndSaysWhenOneIsRefused() async throws {
            try await withPage(token: nil, width: 390, height: 844) { page in
                try await page.wait(for: "the token form", until: "return !document.getElementById('token-entry').hidden")
                #expect(try await page.execute("return document.body.dataset.connection").stringValue == "unauthorized")
                #expect(try await page.execute("return window.innerWidth").intValue == 390)
                try await page.type("sbt_typed", into: page.find("#token-input"))
                try await page.click(page.find("#token-form button"))
                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                _ = try await inject(Self.order, on: page)
                try await page.wait(for: "the order's row", until: "return document.querySelector('[data-seq=\"1\"]')")
                #expect(try await Self.fitsWidth(page), "no sideways scrolling on a phone")

                try await page.execute("fakeDaemon.refuseToken()")
                try await page.wait(for: "the token form again", until: "return !document.getElementById('token-entry').hidden")
                let reason = try await page.text(of: page.find("#token-reason"))
                #expect(reason.contains("refused"))
                #expect(try await page.execute("return sessionStorage.getItem('scanbridge.token')") == .null)
            }
        }

        @Test func saysWhenTheDaemonRefusesItsOrigin() async throws {
            try await withPage { page in
                try await page.wait(for: "the page to connect", until: "return document.body.dataset.connection === 'open'")
                try await page.execute("fakeDaemon.refuseOrigin()")
                try await page.wait(
                    for: "the page to say its origin is refused",
                    until: "return document.body.dataset.connection === 'forbidden'")
                #expect(try await page.text(of: page.find("#connection")).contains("http.origins"))
            }
        }

        @Test func clientModuleCallsSubscribesAndRejects() async throws {
            try await withPage { page in
                try await page.setScriptTimeout(.seconds(20))
                let result = try await page.executeAsync(
                    """
                    const done = arguments[0];
                    (async () => {
                      const module = await import('./scanbridge.mjs');
                      const client = module.connect({ url: 'http://127.0.0.1:1', token: 't' });
                      const hello = await client.call('bridge.hello');
                      const seen = [];
                      // An application's callback that throws hurts neither the client nor other subscriptions.
                      client.subscribe({}, () => { throw new Error('a bug in the till'); });
                      client.subscribe({}, update => { if (update.type === 'scan') seen.push(update.event.seq); });
                      await new Promise(resolve => setTimeout(resolve, 50));
                      fakeDaemon.inject({ kind: 'barcode', device: 'mock:till-1', resolution: { handler: null, status: 'unhandled' } });
                      fakeDaemon.stop();
                      fakeDaemon.inject({ kind: 'barcode', device: 'mock:till-1', resolution: { handler: null, status: 'unhandled' } });
                      fakeDaemon.start();
                      while (seen.length < 2) await new Promise(resolve => setTimeout(resolve, 50));
                      let error = null;
                      try { await client.call('no.such'); } catch (e) { error = { name: e.name, code: e.code }; }
                      client.close();
                      return { protocol: hello.protocol, seen, error, url: module.webSocketURL('https://h:1'), protocols: module.webSocketProtocols('sbt_x') };
                    })().then(done, e => done({ failed: String(e) }));
                    """)
                #expect(result["failed"] == nil, "\(result)")
                #expect(result["protocol"]?.intValue == 1)
                #expect(result["seen"]?.arrayValue?.compactMap(\.intValue).count == 2)
                #expect(result["error"]?["code"]?.intValue == -32601)
                #expect(result["error"]?["name"]?.stringValue == "RPCError")
                #expect(result["url"]?.stringValue == "wss://h:1/v1/ws")
                #expect(result["protocols"]?.arrayValue?.compactMap(\.stringValue) == ["scanbridge", "scanbridge.bearer.sbt_x"])
            }
        }
    }
}
