/// Text a spreadsheet would run as a formula: a cell that starts with `=`, `+`, `-` or `@`
/// (or a tab or carriage return, which some strip first). A product name from a supplier's
/// feed such as `=HYPERLINK("http://…")` must not become a live formula in the shop's
/// spreadsheet when the catalog is exported, so the export writes it after a `'`, which
/// spreadsheets show as text, and the import takes that `'` off again: the catalog comes back
/// unchanged. A plain number (`-3`, `+1.50`) is left as it is.
enum FormulaCells {
    private static let triggers: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    static func neutralized(_ text: String) -> String {
        guard let first = text.first, triggers.contains(first), !isPlainNumber(text) else { return text }
        return "'" + text
    }

    static func restored(_ text: String) -> String {
        guard text.first == "'", let second = text.dropFirst().first, triggers.contains(second) else { return text }
        return String(text.dropFirst())
    }

    private static func isPlainNumber(_ text: String) -> Bool {
        let digits = text.dropFirst()
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
            && digits.filter { $0 == "." }.count <= 1 && (text.first == "-" || text.first == "+")
    }
}
