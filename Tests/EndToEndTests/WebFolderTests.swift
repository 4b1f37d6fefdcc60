import Foundation
import Testing

/// What the gateway's `Content-Security-Policy` (only 'self') and a page showing names from
/// a catalog ask of Web/: no inline script or style, nothing from elsewhere, and no HTML
/// built from strings.
struct WebFolderTests {
    static let folder = repositoryRoot.appendingPathComponent("Web")

    static func files() throws -> [(name: String, text: String)] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
            ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
        }
    }

    @Test func holdsOnlyStaticFilesTheGatewayServes() throws {
        let names = try Self.files().map(\.name)
        #expect(names.contains("index.html") && names.contains("scanbridge.mjs"))
        for name in names {
            // Beside the page: the client's types (.d.mts) and its package's manifest.
            #expect(["html", "css", "js", "mjs", "mts", "json"].contains((name as NSString).pathExtension), "\(name)")
        }
    }

    @Test func hasNoInlineScriptOrStyle() throws {
        for (name, text) in try Self.files() where name.hasSuffix(".html") {
            let lowered = text.lowercased()
            #expect(!lowered.contains("<style"), "\(name): a <style> element")
            #expect(!lowered.contains(" style="), "\(name): a style attribute")
            #expect(
                lowered.components(separatedBy: "<script").dropFirst().allSatisfy { $0.contains("src=") },
                "\(name): a <script> without src")
            #expect(lowered.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil, "\(name): an on… handler")
        }
    }

    @Test func loadsNothingFromElsewhereAndBuildsNoHTMLFromStrings() throws {
        for (name, text) in try Self.files() {
            #expect(!text.contains("http://") && !text.contains("https://"), "\(name): an outside address")
            #expect(!text.contains("@import"), "\(name): a CSS import")
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                #expect(!text.contains(sink), "\(name) uses \(sink)")
            }
        }
    }
}
