import Foundation
import ScanBridgeModel
import ScanBridgeRPC
import Testing

@testable import ScanBridgeServer

/// contract/openrpc.json is the contract for machines (clients' type checks, schema tests,
/// generators): it must describe exactly what the daemon serves, as `MethodCatalog` decides it.
@Suite("contract/openrpc.json")
struct OpenRPCDocumentTests {
    static let document = OpenRPCDocument.checkedIn

    @Test("is an OpenRPC 1.x document whose every $ref resolves")
    func wellFormed() throws {
        let document = try #require(Self.document, "contract/openrpc.json is missing or not JSON")
        #expect(document.root["openrpc"]?.stringValue?.hasPrefix("1.") == true)
        #expect(!document.references.isEmpty)
        for reference in Set(document.references).sorted() {
            #expect(document.resolve(reference) != nil, "\(reference) resolves to nothing")
        }
    }

    @Test("names every method the daemon serves, and no other")
    func methods() throws {
        let document = try #require(Self.document)
        let names = document.methods.map(\.name)
        #expect(Set(names).count == names.count, "a method is described twice")
        let served = Set(RPCDispatcher.standard.methods.keys)
        #expect(Set(names).subtracting(served).sorted() == [], "described, not served")
        #expect(served.subtracting(names).sorted() == [], "served, not described")
    }

    @Test("gives each method MethodCatalog's role and transport flags")
    func flags() throws {
        for method in try #require(Self.document).methods {
            let name = method.name
            #expect(method["x-role"]?.stringValue == MethodCatalog.requiredRole(for: name).description, "\(name)")
            #expect(method["x-socket-only"]?.boolValue == MethodCatalog.isSocketOnly(name), "\(name)")
            #expect(method["x-needs-open-connection"]?.boolValue == MethodCatalog.needsOpenConnection(name), "\(name)")
            #expect(method["x-answer-only"]?.boolValue == MethodCatalog.answerOnly.contains(name), "\(name)")
        }
    }

    @Test("names every notification and daemon request the daemon sends, and no other")
    func daemonMessages() throws {
        let document = try #require(Self.document)
        #expect(document.notifications.map(\.name).sorted() == MethodCatalog.notifications.sorted())
        #expect(document.daemonRequests.map(\.name).sorted() == MethodCatalog.daemonRequests.sorted())
        for message in document.notifications + document.daemonRequests {
            #expect(message["params"]?.arrayValue?.isEmpty == false, "\(message.name) has no params")
        }
    }

    @Test("lists the daemon's error codes, and each method only those")
    func errors() throws {
        let document = try #require(Self.document)
        #expect(Set(document.errorCodes.values) == RPCError.allCodes)
        for method in document.methods {
            let codes = document.errorCodes(of: method)
            #expect(codes.isSubset(of: RPCError.allCodes), "\(method.name) names an error the daemon has not")
            // What the dispatcher itself answers, whatever the method does.
            let name = method.name
            let refusable = MethodCatalog.requiredRole(for: name) > .reader || MethodCatalog.isSocketOnly(name)
            #expect(codes.contains(RPCError.forbidden) == refusable, "\(name): -32003")
            #expect(codes.contains(RPCError.methodNotFound) == MethodCatalog.needsOpenConnection(name), "\(name): -32601")
        }
    }

    @Test("has the error codes docs/protocol.md lists")
    func errorsAsDocumented() throws {
        let document = try #require(Self.document)
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/protocol.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let section = try #require(text.range(of: "\n## Errors\n")).upperBound
        let rest = text[section...]
        let table = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        let documented = table.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("| -") else { return nil }
            return Int(line.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) ?? "")
        }
        #expect(Set(documented) == Set(document.errorCodes.values))
    }
}
