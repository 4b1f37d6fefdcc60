/// An event's JSON as PostgreSQL's `jsonb` takes it. `jsonb` refuses the escape `\u0000`
/// (its text type cannot hold the character), which a scanner may send; one such event would
/// stop the copy of every later one. It is stored as U+FFFD there; the journal keeps it exact.
enum StorableJSON {
    static func text(_ json: [UInt8]) -> String {
        guard json.contains(UInt8(ascii: "\\")) else { return String(decoding: json, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        var index = 0
        let nul = Array(#"\u0000"#.utf8)
        let replacement = Array(#"\ufffd"#.utf8)
        while index < json.count {
            // Inside a string, a backslash always starts an escape of two or six bytes.
            if json[index] == UInt8(ascii: "\\"), index + 1 < json.count {
                if json[index...].starts(with: nul) {
                    out += replacement
                    index += nul.count
                } else {
                    out += json[index...index + 1]
                    index += 2
                }
            } else {
                out.append(json[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
