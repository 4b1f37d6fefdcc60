import Foundation
import ScanBridgeCodes
import ScanBridgeModel

/// The config file's `cards:` section (docs/configuration.md, `cards`): where the keys of the
/// shop's secure cards are, and where their Secure Unique NFC message sits in the tag's URL.
package struct CardSecuritySettings: Decodable, Sendable {
    /// `cards.sun.keys_file`: the SDM keys (`SDMKeys`); none: no message can be verified.
    package var keysFile: String?
    /// The query parameter of the encrypted PICC data; by default `picc_data` or `e`.
    package var piccParameter: String?
    /// The query parameter of the SDMMAC; by default `cmac` or `c`.
    package var cmacParameter: String?

    enum SectionKeys: String, CodingKey {
        case sun
    }

    enum SUNKeys: String, CodingKey {
        case keysFile = "keys_file"
        case piccParameter = "picc_parameter"
        case cmacParameter = "cmac_parameter"
    }

    package init() {}

    package init(from decoder: any Decoder) throws {
        let section = try decoder.container(keyedBy: SectionKeys.self)
        guard section.contains(.sun) else { return }
        let sun = try section.nestedContainer(keyedBy: SUNKeys.self, forKey: .sun)
        keysFile = try sun.decodeIfPresent(String.self, forKey: .keysFile)
        piccParameter = try Self.parameterName(sun, .piccParameter)
        cmacParameter = try Self.parameterName(sun, .cmacParameter)
        if let piccParameter, piccParameter == cmacParameter {
            throw SettingsError(description: "cards.sun.picc_parameter and cmac_parameter are both '\(piccParameter)'")
        }
    }

    /// A query parameter's name: letters, digits, `_`, `-` and `.`, as a tag's URL is written.
    private static func parameterName(_ container: KeyedDecodingContainer<SUNKeys>, _ key: SUNKeys) throws -> String? {
        guard let name = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
        guard (1...32).contains(name.count), name.allSatisfy(allowed.contains) else {
            throw SettingsError(
                description: "cards.sun.\(key.rawValue) '\(name)' is not a query parameter's name "
                    + "(1 to 32 letters, digits, '_', '-' or '.')")
        }
        return name
    }

    /// Where the message sits in the URL.
    package var layout: SUNLayout {
        SUNLayout(
            piccNames: piccParameter.map { [$0] } ?? SUNMessage.piccParameters,
            macNames: cmacParameter.map { [$0] } ?? SUNMessage.macParameters)
    }

    /// The keys, read from `keysFile` (relative to `folder`, the config file's); nil when none
    /// is configured. Refused, saying why, when the file is unsafe or wrong.
    package func keys(relativeTo folder: String?) throws -> SDMKeys? {
        guard let keysFile else { return nil }
        let path = keysFile.hasPrefix("/") || folder == nil ? keysFile : folder! + "/" + keysFile
        return try SDMKeys(path: path)
    }

    struct SettingsError: Error, CustomStringConvertible {
        let description: String
    }
}

/// The names of the message's parts in a tag's URL.
package struct SUNLayout: Sendable, Hashable {
    package var piccNames: [String]
    package var macNames: [String]

    package init(piccNames: [String] = SUNMessage.piccParameters, macNames: [String] = SUNMessage.macParameters) {
        self.piccNames = piccNames
        self.macNames = macNames
    }

    /// Every parameter of the message, taken out of what is shown and kept.
    var names: Set<String> { Set(piccNames + macNames + SUNMessage.fileDataParameters) }
}
