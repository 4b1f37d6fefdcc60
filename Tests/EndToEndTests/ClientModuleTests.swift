import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension BrowserTests {
    /// scanbridge.mjs, loaded as a module by a page the gateway serves, in headless Chromium.
    @Suite(.heavy, .timeLimit(.minutes(5)))
    struct ClientModuleTests {
        /// Opens a client as `window.sb` and records what its subscription delivers in `window.seen`.
        static let setUp = """
            const [token, done] = arguments;
            import('/scanbridge.mjs').then(module => {
              window.module = module;
              window.sb = module.connect({ url: location.origin, token });
              window.seen = [];
              window.states = [];
              window.sb.onStateChange(state => window.states.push(state));
              window.sb.subscribe({ since: 0 }, update => window.seen.push(
                update.type === 'scan' ? { type: 'scan', seq: update.event.seq } : { type: update.type }));
              return window.sb.call('bridge.hello', { client: { name: 'module test', version: '1' } });
            }).then(done, error => done({ failed: String(error) }));
            """

        /// Runs `body` on a page of the daemon's origin where `window.sb` is a connected client.
        func withClient(_ daemon: CounterDaemon, _ body: (WebDriverSession) async throws -> Void) async throws {
            try await withBrowser { page in
                // The gateway serves the module beside the counter page; that page is only the origin here.
                try await page.navigate(to: "\(daemon.origin)/")
                try await page.setScriptTimeout(.seconds(20))
                let hello = try await page.executeAsync(Self.setUp, [.string(daemon.secret)])
                #expect(hello["protocol"]?.intValue == 1, "bridge.hello: \(hello)")
                #expect(hello["role"]?.stringValue == "reader")
                try await body(page)
            }
        }

        func scanSeqs(_ page: WebDriverSession) async throws -> [Int64] {
            let value = try await page.execute("return window.seen.filter(e => e.type === 'scan').map(e => e.seq)")
            return (value.arrayValue ?? []).compactMap(\.intValue)
        }

        @Test func callsAnswerAndErrorsReject() async throws {
            let daemon = try await CounterDaemon.start()
            try await withClient(daemon) { page in
                let devices = try await page.executeAsync(
                    "const done = arguments[0]; sb.call('devices.list').then(r => done(r.devices.map(d => d.id)))")
                #expect(devices.arrayValue?.contains("mock:till-1") == true)
                let refused = try await page.executeAsync(
                    """
                    const done = arguments[0];
                    sb.call('products.upsert', { product: { name: 'x', price: '1.00' } })
                      .then(() => done('succeeded'), e => done({ code: e.code, named: e.name, message: e.message }))
                    """)
                #expect(refused["code"]?.intValue == -32003, "a reader may not upsert: \(refused)")
                #expect(refused["named"]?.stringValue == "RPCError")
            }
        }

        @Test func subscribeDeliversEveryScanOnceAcrossARestart() async throws {
            let daemon = try await CounterDaemon.start()
            let before = try await daemon.inject("5901234123457")
            try await withClient(daemon) { page in
                var expected = [before]
                for text in ["4006381333931", "5901234123457"] { expected.append(try await daemon.inject(text)) }
                try await page.wait(
                    for: "\(expected.count) scans", until: "return window.seen.filter(e => e.type === 'scan').length >= 3")
                #expect(try await scanSeqs(page) == expected, "since 0 replays the older scan, then live ones")

                try await daemon.restart()
                for text in ["4006381333931", "0000000000000"] { expected.append(try await daemon.inject(text)) }
                try await page.wait(
                    for: "\(expected.count) scans after the restart",
                    until: "return window.seen.filter(e => e.type === 'scan').length >= \(expected.count)")
                try await page.wait(for: "the client to reopen", until: "return window.sb.state === 'open'")
                #expect(try await scanSeqs(page) == expected, "none missed, none repeated")
                let states = try await page.execute("return window.states")
                #expect(states.arrayValue?.contains("reconnecting") == true)

                _ = try await daemon.call("mock.detach", ["id": "mock:till-1"])
                try await page.wait(
                    for: "a device.removed", until: "return window.seen.some(e => e.type === 'device.removed')")
            }
        }
    }
}
