import Foundation
import ScanBridgeCodes
import ScanBridgeModel
package import ScanBridgeSUN

/// The shop's SDM keys for its NTAG 424 DNA cards, from the keys file (docs/security.md,
/// Secure cards): one line per key, `name: 32 hex digits`, `#` for comments.
///
/// - `meta_read_key`: decrypts the PICC data (SDMMetaReadKey). Required: the data is
///   decrypted before the tag's UID is known, so this key is one for every tag.
/// - `file_read_key`: the SDMMAC's key (SDMFileReadKey), the same on every tag; or
/// - `master_key`: each tag's file read key diversified from it (NXP AN10922, the UID as
///   input, then `diversification_data` when given, hex).
///
/// No key reaches a log, an error or an event: errors name the line, never its value.
package struct SDMKeys: Sendable {
    package enum FileReadKey: Sendable {
        case fixed(AESKey)
        case diversified(master: AESKey, suffix: [UInt8])
    }

    package let metaReadKey: AESKey
    package let fileReadKey: FileReadKey

    package init(metaReadKey: AESKey, fileReadKey: FileReadKey) {
        self.metaReadKey = metaReadKey
        self.fileReadKey = fileReadKey
    }

    /// Reads the file at `path`, once its mode is safe: readable by its owner alone.
    package init(path: String) throws(LoadError) {
        let setting = "cards.sun.keys_file"
        if let problem = SecretFile.problem(path, setting: setting, ownerOnly: true) { throw LoadError(problem) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw LoadError("\(setting) '\(path)' cannot be read")
        }
        try self.init(text: text, named: "\(setting) \(path)")
    }

    init(text: String, named file: String) throws(LoadError) {
        var values: [String: (value: String, line: Int)] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.prefix { $0 != "#" }.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw LoadError("\(file), line \(index + 1), is not 'name: value'")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard Self.names.contains(name) else {
                throw LoadError(
                    "\(file), line \(index + 1): unknown key '\(name)'; the keys are \(Self.names.sorted().joined(separator: ", "))"
                )
            }
            guard values[name] == nil else { throw LoadError("\(file), line \(index + 1): \(name) is given twice") }
            values[name] = (line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces), index + 1)
        }
        func key(_ name: String) throws(LoadError) -> AESKey? {
            guard let (value, line) = values[name] else { return nil }
            do {
                return try AESKey(hex: value)
            } catch {
                throw LoadError("\(file), line \(line): \(name) is not 32 hex digits")
            }
        }
        guard let meta = try key("meta_read_key") else { throw LoadError("\(file) has no meta_read_key") }
        metaReadKey = meta
        switch (try key("file_read_key"), try key("master_key")) {
        case (let fixed?, nil):
            guard values["diversification_data"] == nil else {
                throw LoadError("\(file): diversification_data goes with master_key, not file_read_key")
            }
            fileReadKey = .fixed(fixed)
        case (nil, let master?):
            var suffix: [UInt8] = []
            if let (value, line) = values["diversification_data"] {
                guard let bytes = Hex.decode(value), bytes.count <= KeyDiversification.inputLengths.upperBound - 7 else {
                    throw LoadError("\(file), line \(line): diversification_data is not hex of at most 24 bytes")
                }
                suffix = bytes
            }
            fileReadKey = .diversified(master: master, suffix: suffix)
        case (nil, nil): throw LoadError("\(file) has neither file_read_key nor master_key")
        case (_?, _?): throw LoadError("\(file) has both file_read_key and master_key; keep one")
        }
    }

    static let names: Set<String> = ["meta_read_key", "file_read_key", "master_key", "diversification_data"]

    /// The verifier of messages made with these keys.
    package var verifier: SUNVerifier {
        let fileReadKey = fileReadKey
        return SUNVerifier(metaReadKey: metaReadKey) { uid in
            switch fileReadKey {
            case .fixed(let key): return key
            case .diversified(let master, let suffix): return try? KeyDiversification.aes128(master: master, input: uid + suffix)
            }
        }
    }

    /// Why the keys file is refused; it names the file and the line, never a key.
    package struct LoadError: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }
}
