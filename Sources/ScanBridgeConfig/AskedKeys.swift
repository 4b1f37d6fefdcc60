/// The keys of each mapping of a config section, and those the section's settings type asked
/// for (`contains`, `decode`, `decodeIfPresent`). A key it never asked for is one it does not
/// know: so the config module finds typos in every section without knowing any section's keys,
/// which its owner's `Decodable` type alone knows.
final class AskedKeys {
    private final class Mapping {
        /// Its coding path, list indices included: two lists' entries are two mappings.
        let id: [String]
        let path: [String]
        let present: [String]
        var asked: Set<String> = []

        init(id: [String], path: [String], present: [String]) {
            self.id = id
            self.path = path
            self.present = present
        }
    }

    private var mappings: [Mapping] = []

    /// Notes a mapping read at `codingPath` (once, however many containers read it); the
    /// returned closure notes a key asked for.
    func mapping(at codingPath: [any CodingKey], present: [String]) -> (String) -> Void {
        let id = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
        let mapping =
            mappings.first { $0.id == id }
            // List indices are left out of its name: a key of a `mock:` entry is "in 'mock'".
            ?? Mapping(id: id, path: codingPath.filter { $0.intValue == nil }.map(\.stringValue), present: present)
        if !mappings.contains(where: { $0 === mapping }) { mappings.append(mapping) }
        return { mapping.asked.insert($0) }
    }

    /// The first key of the file that no mapping asked for, as a sentence naming where it is
    /// and the keys known there; nil when there is none.
    func unknownKey() -> String? {
        for mapping in mappings {
            guard let key = mapping.present.first(where: { !mapping.asked.contains($0) }) else { continue }
            let place = mapping.path.isEmpty ? "at the top level" : "in '\(mapping.path.joined(separator: "."))'"
            return "unknown key '\(key)' \(place); known keys: \(mapping.asked.sorted().joined(separator: ", "))"
        }
        return nil
    }
}
