import Foundation
import Yams

extension DaemonConfig {
    package struct LoadError: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Reads and checks a config file: YAML syntax, and the types and unknown keys of the
    /// daemon's own keys and sections. The other sections are checked when their modules
    /// decode them (`section(_:as:)`).
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
            let tree = try Yams.compose(yaml: text)
            if let tree { try checkKeysAreNames(tree, at: "") }
            var config = try decode(from: tree ?? Node.mapping([:]), section: nil) { try DaemonConfig(from: $0) }
            config.path = path
            config.tree = tree
            return config
        } catch let error as LoadError {
            throw LoadError(description: "\(path): \(error.description)")
        } catch {
            throw LoadError(description: "\(path) is not a valid config: \(error)")
        }
    }

    /// The section `name` of the file decoded by the settings type of the module that owns it,
    /// which checks its values; nil when the file has none. Its unknown keys are refused, as
    /// are any error the type throws, with a sentence naming the file.
    package func section<Settings: Decodable>(_ name: String, as type: Settings.Type = Settings.self) throws -> Settings? {
        try section(name) { try Settings(from: $0) }
    }

    /// The section `name` of the file, given to `decode` (a driver's factory decoding its own).
    package func section<Settings>(_ name: String, decode: (any Decoder) throws -> Settings) throws -> Settings? {
        guard let tree, let path, tree[name] != nil else { return nil }
        do {
            return try Self.decode(from: tree, section: name, decode)
        } catch let error as LoadError {
            throw LoadError(description: "\(path): \(error.description)")
        } catch let error as DecodingError {
            throw LoadError(description: "\(path) is not a valid config: \(error)")
        } catch {
            // A module's own sentence (a number out of its range).
            throw LoadError(description: "\(path): \(error)")
        }
    }

    /// `decode` over `node`, or over its section `section`, through a `KeyCheckingDecoder`;
    /// refused if it left a key unread. Only the keys under where it starts are checked: a
    /// section's decoding does not see the file's other sections.
    private static func decode<T>(from node: Node, section: String?, _ decode: (any Decoder) throws -> T) throws -> T {
        let asked = AskedKeys()
        let root = try YAMLDecoder().decode(RootDecoder.self, from: node).base
        let start = try section.map { try root.container(keyedBy: NameKey.self).superDecoder(forKey: NameKey($0)) } ?? root
        let value = try decode(KeyCheckingDecoder(base: start, asked: asked))
        if let unknown = asked.unknownKey() { throw LoadError(description: unknown) }
        return value
    }

    /// Refuses a key that is a list or a mapping, naming the section it is in.
    private static func checkKeysAreNames(_ node: Node, at section: String) throws {
        if let list = node.sequence {
            for element in list { try checkKeysAreNames(element, at: section) }
            return
        }
        guard let map = node.mapping else { return }
        let place = section.isEmpty ? "at the top level" : "in '\(section)'"
        for (keyNode, value) in map {
            guard let key = keyNode.scalar?.string else {
                let example = map.keys.compactMap { $0.scalar?.string }.min().map { ", such as \($0)" } ?? ""
                throw LoadError(description: "a key \(place) is a list or a mapping; a key is a name\(example)")
            }
            try checkKeysAreNames(value, at: section.isEmpty ? key : "\(section).\(key)")
        }
    }
}

/// Yams's decoder of a whole file, kept to decode it through a `KeyCheckingDecoder`.
private struct RootDecoder: Decodable {
    let base: any Decoder

    init(from decoder: any Decoder) throws {
        base = decoder
    }
}
