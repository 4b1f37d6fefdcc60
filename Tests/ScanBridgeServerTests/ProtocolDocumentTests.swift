import Foundation
import ScanBridgeRPC
import Testing

@testable import ScanBridgeServer

/// docs/protocol.md is the contract clients are written from: its "At a glance" tables name
/// exactly what the daemon serves and sends, with the role each method needs.
@Suite("docs/protocol.md")
struct ProtocolDocumentTests {
    /// The rows of the "At a glance" tables, by the header of their first column.
    static let tables: [String: [(name: String, cells: [String])]] = {
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/protocol.md")
        guard let text = try? String(contentsOf: docs, encoding: .utf8),
            let start = text.range(of: "\n## At a glance\n")
        else { return [:] }
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var tables: [String: [(name: String, cells: [String])]] = [:]
        var header: String?
        for line in section[..<end].split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                header = nil
                continue
            }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = cells.first, !first.hasPrefix("--") else { continue }
            if header == nil {
                header = first
                tables[first] = []
                continue
            }
            guard first.hasPrefix("`"), first.hasSuffix("`") else { continue }
            tables[header!, default: []].append((String(first.dropFirst().dropLast()), Array(cells.dropFirst())))
        }
        return tables
    }()

    @Test("names every method the daemon serves, and no other")
    func methods() {
        let documented = Set(Self.tables["method", default: []].map(\.name))
        #expect(!documented.isEmpty, "docs/protocol.md has no methods table under \"## At a glance\"")
        #expect(documented.subtracting(RPCDispatcher.standard.methods.keys).sorted() == [], "documented, not served")
        #expect(Set(RPCDispatcher.standard.methods.keys).subtracting(documented).sorted() == [], "served, not documented")
    }

    @Test("gives each method the role the daemon requires")
    func roles() {
        for row in Self.tables["method", default: []] {
            #expect(row.cells.first == MethodCatalog.requiredRole(for: row.name).description, "\(row.name)")
        }
    }

    @Test("names every notification and daemon request the daemon sends, and no other")
    func notifications() {
        #expect(Set(Self.tables["notification", default: []].map(\.name)) == Set(MethodCatalog.notifications))
        #expect(Set(Self.tables["daemon request", default: []].map(\.name)) == Set(MethodCatalog.daemonRequests))
    }
}
