import Foundation
import ScanBridgeModel

/// contract/openrpc.json, read as the tests need it: its methods, its daemon → client messages
/// and its `$ref`s.
struct OpenRPCDocument {
    let root: JSONValue

    /// The document in this checkout, or nil when it is missing or not JSON (a test says so).
    static let checkedIn: OpenRPCDocument? = {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("contract/openrpc.json")
        guard let bytes = try? Data(contentsOf: file), let root = try? JSONValue(parsing: Array(bytes)) else { return nil }
        return OpenRPCDocument(root: root)
    }()

    var methods: [JSONValue] { root["methods"]?.arrayValue ?? [] }
    var notifications: [JSONValue] { root["x-notifications"]?.arrayValue ?? [] }
    var daemonRequests: [JSONValue] { root["x-daemon-requests"]?.arrayValue ?? [] }

    /// The codes of `components.errors`, by the name a `$ref` gives them.
    var errorCodes: [String: Int] {
        (root["components"]?["errors"]?.objectValue ?? [:]).compactMapValues { $0["code"]?.intValue.map(Int.init) }
    }

    /// The codes a method's `errors` name, through their `$ref`s.
    func errorCodes(of method: JSONValue) -> Set<Int> {
        Set(
            (method["errors"]?.arrayValue ?? []).compactMap { error in
                let target = error["$ref"]?.stringValue.flatMap(resolve) ?? error
                return target["code"]?.intValue.map(Int.init)
            })
    }

    /// Every `$ref` in the document, wherever it is.
    var references: [String] {
        var found: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let members):
                if let target = members["$ref"]?.stringValue { found.append(target) }
                members.values.forEach(walk)
            case .array(let items): items.forEach(walk)
            default: break
            }
        }
        walk(root)
        return found
    }

    /// What a reference within the document points at (`#/components/schemas/Device`), or nil.
    /// References to other files are not followed: the contract is one file.
    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var value = root
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            // RFC 6901: ~1 is "/", ~0 is "~", in that order.
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch value {
            case .object(let members):
                guard let next = members[key] else { return nil }
                value = next
            case .array(let items):
                guard let index = Int(key), items.indices.contains(index) else { return nil }
                value = items[index]
            default: return nil
            }
        }
        return value
    }
}

extension JSONValue {
    /// `name` of an OpenRPC method or extension entry.
    var name: String { self["name"]?.stringValue ?? "" }
}
