/// Text from a device, a handler or the catalog made safe for a terminal. A terminal acts on
/// C0 controls (U+0000–U+001F), DEL and C1 controls (U+0080–U+009F, which many terminals take
/// as 8-bit escapes, CSI among them), so a scanned or stored string could move the cursor,
/// recolour or retitle the window, or hide what was printed. Each is shown as `<0x1B>` instead,
/// and the separators a GS1 or ISO 15434 code carries by their names, so they are seen.
enum TerminalText {
    /// Whether the terminal would act on `scalar` instead of showing it.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F, 0x80...0x9F: true
        default: false
        }
    }

    /// `text` with every control character shown; with `keepingNewlines`, a line feed stays one
    /// (for text the CLI laid out in lines itself).
    static func visible(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar), !(keepingNewlines && scalar == "\n") else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x1D: out += "<GS>"
            case 0x1E: out += "<RS>"
            case 0x04: out += "<EOT>"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "<0x" + (hex.count < 2 ? "0" : "") + hex + ">"
            }
        }
        return out
    }

    /// JSON text with the C1 controls in its strings escaped (`\u009B`): the JSON writer
    /// escapes C0 ones only, and outside strings JSON text is ASCII, so the value is the same.
    static func json(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) && scalar.value >= 0x80 {
                out += "\\u00" + String(scalar.value, radix: 16, uppercase: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
