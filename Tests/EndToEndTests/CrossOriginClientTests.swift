import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension BrowserTests {
    /// README's browser snippet as a POS developer first runs it: from a page of another
    /// origin on the same machine (a development server on another loopback port), importing
    /// the client from the daemon's gateway.
    @Suite(.heavy, .timeLimit(.minutes(5)))
    struct CrossOriginClientTests {
        /// README's snippet, with the daemon's address and token as arguments, and what its
        /// subscription delivers kept in `window.seen`.
        static let readmeSnippet = """
            const [url, token, done] = arguments;
            import(url + '/scanbridge.mjs').then(({ connect }) => {
              const bridge = connect({ url, token });
              window.seen = [];
              bridge.subscribe({ kinds: ['barcode', 'qr'] }, (update) => {
                if (update.type === 'scan') window.seen.push({ seq: update.event.seq, status: update.event.resolution.status });
              });
              return bridge.call('bridge.hello', { client: { name: 'cross-origin page', version: '1' } });
            }).then(done, error => done({ failed: String(error) }));
            """

        @Test func anAllowedOriginImportsTheClientAndGetsScans() async throws {
            let server = try await DevelopmentServer.start()
            let daemon = try await CounterDaemon.start(allowing: [server.origin])
            try await withBrowser { page in
                try await page.navigate(to: "\(server.origin)/")
                try await page.setScriptTimeout(.seconds(20))
                let hello = try await page.executeAsync(Self.readmeSnippet, [.string(daemon.origin), .string(daemon.secret)])
                #expect(hello["role"]?.stringValue == "reader", "bridge.hello: \(hello)")

                let seq = try await daemon.inject("5901234123457")
                try await page.wait(for: "the scan", until: "return window.seen.length >= 1")
                let seen = try await page.execute("return window.seen")
                #expect(seen[0]?["seq"]?.intValue == seq && seen[0]?["status"]?.stringValue == "found", "\(seen)")
            }
        }

        /// The same page by another name is another origin, which the daemon was not told to
        /// allow: the import fails as the browser says, and a script reads the refusal's reason.
        @Test func anOriginNotAllowedIsToldWhy() async throws {
            let server = try await DevelopmentServer.start()
            let daemon = try await CounterDaemon.start(allowing: [server.origin])
            try await withBrowser { page in
                try await page.navigate(to: "http://localhost:\(server.port)/")
                try await page.setScriptTimeout(.seconds(20))
                let outcome = try await page.executeAsync(
                    """
                    const [url, done] = arguments;
                    (async () => {
                      const imported = await import(url + '/scanbridge.mjs').then(() => 'imported', () => 'refused');
                      const response = await fetch(url + '/scanbridge.mjs');
                      return { imported, status: response.status, body: await response.json() };
                    })().then(done, error => done({ failed: String(error) }));
                    """, [.string(daemon.origin)])
                #expect(outcome["imported"]?.stringValue == "refused", "\(outcome)")
                #expect(outcome["status"]?.intValue == 403, "\(outcome)")
                #expect(outcome["body"]?["error"]?["code"]?.stringValue == "forbidden_origin", "\(outcome)")
            }
        }
    }
}

/// A web developer's own server on a loopback port (Python's `http.server`), serving an empty
/// page: the origin of a POS under development. Not the gateway, whose pages carry a policy
/// that lets them load scripts from their own origin alone.
struct DevelopmentServer {
    let process: Spawned
    let port: Int
    var origin: String { "http://127.0.0.1:\(port)" }

    static func start() async throws -> DevelopmentServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scanbridge-pos-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("<!doctype html><title>A POS</title>".utf8).write(to: folder.appendingPathComponent("index.html"))
        let process = try Spawned(
            command: ["/usr/bin/python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder.path])
        // "Serving HTTP on 127.0.0.1 port 43567 (http://127.0.0.1:43567/) ..."
        let line = try await process.firstLine()
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(of: "port"), index + 1 < words.count, let port = Int(words[index + 1]) else {
            throw UnexpectedAnswer(description: "http.server said no port: \(line)")
        }
        return DevelopmentServer(process: process, port: port)
    }
}
