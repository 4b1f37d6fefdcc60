package import ScanBridgeCodes

/// A demo or test script of timed scans, played on one mock device.
///
/// One step per line: the seconds to wait, optional `symbology=NAME`, then either
/// `uid=HEX` (an NFC tap) or the text scanned (the rest of the line, spaces kept).
/// Blank lines and lines starting with `#` are ignored.
///
///     # wait  what
///     1.5     5901234123457
///     0.8     uid=04A1B2C3D4E5F6
///     2       symbology=qr ORDER:ord_1001
package struct MockScript: Sendable, Hashable {
    package struct Step: Sendable, Hashable {
        package var delay: Duration
        package var text: String?
        package var uid: [UInt8]?
        package var symbology: String?
    }

    package var steps: [Step]

    package init(steps: [Step]) {
        self.steps = steps
    }

    /// Parses a script; errors name the line.
    package init(parsing source: String, name: String = "script") throws(CodeError) {
        var steps: [Step] = []
        for (index, rawLine) in source.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingPrefix(while: \.isWhitespace)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let place = "\(name) line \(index + 1)"
            var rest = Substring(line)
            guard let seconds = Double(Self.takeWord(&rest)), seconds >= 0, seconds < 86_400 else {
                throw CodeError("\(place): start with the seconds to wait (e.g. 1.5)")
            }
            var step = Step(delay: .milliseconds(Int((seconds * 1000).rounded())))
            while true {
                let word = Self.peekWord(rest)
                if word.hasPrefix("symbology=") {
                    let name = String(word.dropFirst("symbology=".count))
                    guard Symbology.barcode.contains(name) || Symbology.nfc.contains(name) else {
                        throw CodeError("\(place): unknown symbology '\(name)'")
                    }
                    step.symbology = name
                    _ = Self.takeWord(&rest)
                } else if word.hasPrefix("uid=") {
                    do throws(CodeError) {
                        step.uid = try NFCUID(parsing: String(word.dropFirst("uid=".count))).bytes
                    } catch {
                        throw CodeError("\(place): \(error.message)")
                    }
                    _ = Self.takeWord(&rest)
                } else {
                    break
                }
            }
            let text = rest.trimmingPrefix(while: \.isWhitespace)
            if !text.isEmpty { step.text = String(text.reversed().drop(while: \.isWhitespace).reversed()) }
            guard step.text != nil || step.uid != nil else {
                throw CodeError("\(place): say what is scanned: the text, or uid=HEX for a card")
            }
            steps.append(step)
        }
        guard !steps.isEmpty else { throw CodeError("\(name) has no steps") }
        self.steps = steps
    }

    /// The time one pass of the script takes.
    package var duration: Duration {
        steps.reduce(.zero) { $0 + $1.delay }
    }

    private static func peekWord(_ text: Substring) -> Substring {
        text.trimmingPrefix(while: \.isWhitespace).prefix(while: { !$0.isWhitespace })
    }

    private static func takeWord(_ text: inout Substring) -> Substring {
        text = text.trimmingPrefix(while: \.isWhitespace)
        let word = text.prefix(while: { !$0.isWhitespace })
        text = text.dropFirst(word.count)
        return word
    }
}

extension MockScript.Step {
    init(delay: Duration) {
        self.init(delay: delay, text: nil, uid: nil, symbology: nil)
    }
}
