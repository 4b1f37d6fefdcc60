import ScanBridgeCodes

/// One key event of a burst, kept so its keys can be read again in another layout.
struct KeyPress: Equatable, Sendable {
    var code: UInt16
    /// 1 press, 0 release.
    var value: Int32
}

/// A layout in which a scan's keys read as a plausible code, where the declared layout gave
/// text that is not: the sign of a scanner set up for another layout than the daemon was told.
package struct LayoutGuess: Equatable, Sendable {
    /// The XKB layout name (`fr`).
    package var layout: String
    /// What the keys read in it.
    package var text: String
}

/// Reads a scan's keys again in a few common layouts when what the declared layout made of
/// them looks wrong. A code that looks right is never read twice, so a well set-up scanner
/// costs nothing here.
enum LayoutCheck {
    /// The layouts tried, in this order: the first that reads the keys well is the guess.
    static let common = ["us", "de", "fr", "gb", "es", "it"]

    /// A layout that turns `keys` into a valid GTIN, or, where `text` (the declared layout's
    /// reading, with `unmapped` keys it had no character for) is not plain ASCII, into plain
    /// ASCII; nil when `text` looks right or no other layout reads better.
    static func betterLayout(keys: some Collection<KeyPress>, text: String, unmapped: Bool, declared: String) -> LayoutGuess? {
        let garbled = unmapped || !isPlainASCII(text)
        guard garbled || looksLikeMistypedDigits(text) else { return nil }
        let readings = common.filter { $0 != baseName(declared) }.compactMap { layout in
            read(keys, in: layout).map { (layout: layout, text: $0.text, unmapped: $0.unmapped) }
        }
        if let gtin = readings.first(where: { !$0.unmapped && GTIN.gtin14($0.text) != nil }) {
            return LayoutGuess(layout: gtin.layout, text: gtin.text)
        }
        if garbled, let ascii = readings.first(where: { !$0.unmapped && !$0.text.isEmpty && isPlainASCII($0.text) }) {
            return LayoutGuess(layout: ascii.layout, text: ascii.text)
        }
        return nil
    }

    /// Printable ASCII, and GS (a GS1 separator).
    static func isPlainASCII(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) || $0.value == 0x1D }
    }

    /// The length of a GTIN, no letter, and not all digits: what digits typed with or without
    /// Shift in the wrong layout become (`%()!@#$` for `5901234` from an AZERTY scanner).
    private static func looksLikeMistypedDigits(_ text: String) -> Bool {
        [8, 12, 13, 14].contains(text.count) && !text.contains(where: \.isLetter) && !text.allSatisfy(\.isWholeNumber)
    }

    /// `de` of `de(nodeadkeys)`.
    private static func baseName(_ layout: String) -> String {
        String(layout.prefix { $0 != "(" })
    }

    /// The keys decoded afresh in `layout`; nil when it cannot be compiled.
    private static func read(_ keys: some Collection<KeyPress>, in layout: String) -> (text: String, unmapped: Bool)? {
        guard let keymap = try? XKBKeymap.named(layout) else { return nil }
        let decoder = KeyDecoder(keymap: keymap)
        var text = ""
        var unmapped = false
        for key in keys {
            switch decoder.key(code: key.code, value: key.value) {
            case .text(let characters)?: text += characters
            case .unmapped?: unmapped = true
            case .terminator?, nil: break
            }
        }
        return (text, unmapped)
    }
}
