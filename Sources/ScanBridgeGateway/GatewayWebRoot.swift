import Foundation
import NIOHTTP1
import NIOPosix
import ScanBridgeServer

/// The counter page's files (`http.web_root`): served read-only, never a file outside the
/// folder, with their content type, and a policy that lets the page load nothing but its own.
package struct GatewayWebRoot: Sendable {
    /// The folder, resolved (symbolic links and all) when the gateway starts.
    let path: String

    init(path: String) {
        self.path = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// Where the daemon looks when `http.web_root` is not set: `share/scanbridge/web` beside
    /// its `bin/` folder (an installed package), then `Web/` in the source checkout it was
    /// built in, then /usr/share/scanbridge/web.
    package static func defaultPath(executable: String, sourceRoot: String) -> String {
        let installed = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/scanbridge/web").path
        let candidates = [installed, sourceRoot + "/Web", "/usr/share/scanbridge/web"]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/index.html") } ?? candidates.last!
    }

    static let contentSecurityPolicy =
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        // scanbridge.d.mts, the client's types: text to read or save, never a script to run.
        "mts": "text/plain; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png",
        "ico": "image/x-icon", "txt": "text/plain; charset=utf-8", "webmanifest": "application/manifest+json",
        "woff2": "font/woff2",
    ]

    /// The file at a request's path (`/` is `index.html`), or why there is none.
    func response(for requestPath: String) async -> GatewayResponse {
        let segments = requestPath.split(separator: "/", omittingEmptySubsequences: true)
        // No way out of the folder, and nothing hidden (dot files, editors' leftovers).
        guard !segments.contains(where: { $0.hasPrefix(".") || $0.contains("\0") || $0.contains("\\") }) else {
            return Self.notFound
        }
        let relative = segments.isEmpty ? "index.html" : segments.joined(separator: "/")
        let root = path
        let file: (bytes: [UInt8], name: String)? = try? await NIOThreadPool.singleton.runIfActive {
            var candidate = URL(fileURLWithPath: root).appendingPathComponent(relative).resolvingSymlinksInPath().path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue {
                candidate += "/index.html"
            }
            // A symbolic link inside may not lead out.
            guard candidate.hasPrefix(root + "/") else { return nil }
            guard let data = FileManager.default.contents(atPath: candidate) else { return nil }
            return ([UInt8](data), candidate)
        }
        guard let file else { return Self.notFound }
        let suffix = file.name.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        var response = GatewayResponse(
            status: .ok, contentType: Self.contentTypes[suffix] ?? "application/octet-stream", body: file.bytes)
        response.headers.add(name: "Content-Security-Policy", value: Self.contentSecurityPolicy)
        // Always asked again: a new daemon's page is never mixed with an old one's script.
        response.headers.add(name: "Cache-Control", value: "no-cache")
        response.headers.add(name: "Referrer-Policy", value: "no-referrer")
        return response
    }

    static let notFound = GatewayResponse.refusal(.notFound, "not_found", "not found: no such page or file")
}
