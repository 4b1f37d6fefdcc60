import Foundation
import MockDriver
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import Yams

extension DaemonConfig {
    package struct LoadError: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Reads and checks a config file: YAML syntax, unknown keys, types, and the mock scripts it names.
    package static func load(path: String) throws -> DaemonConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw LoadError(description: "cannot read the config file \(path): \(error.localizedDescription)")
        }
        do {
            // The node tree, not Yams.load's dictionaries: Yams.load traps on a key that is not
            // a scalar (`? kind: barcode`), where this gives an error naming the section.
            if let tree = try Yams.compose(yaml: text) {
                try checkKeys(tree, allowed: Self.allowedKeys, at: "")
            }
            return try YAMLDecoder().decode(DaemonConfig.self, from: text)
        } catch let error as LoadError {
            throw LoadError(description: "\(path): \(error.description)")
        } catch {
            throw LoadError(description: "\(path) is not a valid config: \(error)")
        }
    }

    /// Known keys, nested by section; `mock` is a list of device entries.
    private static let allowedKeys: [String: Set<String>] = [
        "": [
            "socket", "socket_group", "database", "drivers", "log_level", "log_format", "journal", "server", "http", "roles",
            "catalog",
            "orders", "handlers", "pcsc", "usb", "scanners", "mock", "counter_id", "store",
        ],
        "store": ["url", "password_file"],
        "http": ["listen", "origins", "hosts", "max_connections", "metrics_public", "web_root", "tls"],
        "http.tls": ["certificate", "key"],
        "pcsc": ["feedback", "feedback_readers"],
        "usb": ["auto_reset_after_errors"],
        "scanners": ["discover", "layout", "grab", "max_gap", "idle", "claim", "release"],
        "catalog": ["store_id", "currency", "region", "variable_measure"],
        "catalog.variable_measure": ["replace", "layouts"],
        "catalog.variable_measure.layouts": [
            "prefixes", "item_digits", "price_digits", "weight_digits", "decimals", "price_check_digit",
        ],
        "orders": ["reference_pattern"],
        "handlers": ["timeout_ms"],
        "journal": ["durability", "retention_events", "retention_days"],
        "server": [
            "max_line_bytes", "subscription_queue", "connection_buffer_bytes", "subscriptions_per_connection",
            "pending_requests", "max_batch", "max_connections", "max_connections_per_user", "handlers_per_connection",
        ],
        "roles": ["admin_groups", "operator_groups", "reader_groups"],
        "mock": ["kind", "id", "name", "script", "loop"],
    ]

    private static func checkKeys(_ node: Node, allowed: [String: Set<String>], at section: String) throws {
        if let list = node.sequence {
            for element in list { try checkKeys(element, allowed: allowed, at: section) }
            return
        }
        guard let map = node.mapping, let keys = allowed[section] else { return }
        let place = section.isEmpty ? "at the top level" : "in '\(section)'"
        for (keyNode, value) in map {
            guard let key = keyNode.scalar?.string else {
                throw LoadError(
                    description: "a key \(place) is a list or a mapping; a key is a name, such as \(keys.min() ?? "")")
            }
            guard keys.contains(key) else {
                throw LoadError(
                    description: "unknown key '\(key)' \(place); known keys: \(keys.sorted().joined(separator: ", "))")
            }
            let nested = section.isEmpty ? key : "\(section).\(key)"
            if section.isEmpty || allowed[nested] != nil { try checkKeys(value, allowed: allowed, at: nested) }
        }
    }

    /// The mock devices of the file, with their scripts read relative to the file's folder.
    package func mockDevices(relativeTo configPath: String?) throws -> [MockDeviceSpec] {
        let folder =
            configPath.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return try mock.map { entry in
            var script: MockScript?
            if let path = entry.script {
                let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
                let source: String
                do {
                    source = try String(contentsOf: url, encoding: .utf8)
                } catch {
                    throw LoadError(description: "cannot read the mock script \(url.path): \(error.localizedDescription)")
                }
                do throws(CodeError) {
                    script = try MockScript(parsing: source, name: url.lastPathComponent)
                } catch {
                    throw LoadError(description: error.message)
                }
            }
            do throws(ScanBridgeError) {
                return try MockDeviceSpec(
                    kind: entry.kind, id: entry.id, name: entry.name, script: script, loop: entry.loop ?? false)
            } catch {
                throw LoadError(description: "mock device \(entry.id ?? entry.kind.rawValue): \(error.message)")
            }
        }
    }
}
