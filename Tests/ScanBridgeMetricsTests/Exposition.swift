/// The text exposition format 0.0.4 read back strictly, as a scraper would: a line that does
/// not parse, a sample before its family's `# TYPE`, a family typed twice, or text that does
/// not end in a newline throws.
struct Exposition {
    struct Sample: Hashable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Family {
        var help: String?
        var type: String?
        var samples: [Sample] = []
    }

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var families: [String: Family] = [:]

    init(_ bytes: [UInt8]) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.isEmpty || text.hasSuffix("\n") else { throw Invalid(description: "the last line has no newline") }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            try read(Substring(line))
        }
    }

    subscript(name: String) -> Family? { families[name] }

    /// The value of the sample named `name` with exactly `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        families.values.lazy.flatMap(\.samples).first { $0.name == name && $0.labels == labels }?.value
    }

    private mutating func read(_ line: Substring) throws {
        guard !line.isEmpty else { throw Invalid(description: "an empty line") }
        if line.hasPrefix("# HELP ") {
            let rest = line.dropFirst("# HELP ".count)
            let name = String(rest.prefix { $0 != " " })
            try Self.checkName(name)
            guard families[name]?.help == nil else { throw Invalid(description: "\(name) has two HELP lines") }
            families[name, default: Family()].help = String(rest.dropFirst(name.count + 1))
        } else if line.hasPrefix("# TYPE ") {
            let parts = line.dropFirst("# TYPE ".count).split(separator: " ")
            guard parts.count == 2, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[1]) else {
                throw Invalid(description: "a malformed TYPE line: \(line)")
            }
            let name = String(parts[0])
            try Self.checkName(name)
            guard families[name]?.type == nil, families[name]?.samples.isEmpty ?? true else {
                throw Invalid(description: "\(name) is typed twice, or after its samples")
            }
            families[name, default: Family()].type = String(parts[1])
        } else if line.hasPrefix("#") {
            return
        } else {
            let sample = try Self.sample(line)
            guard let family = family(of: sample.name) else {
                throw Invalid(description: "\(sample.name) comes before its family's TYPE line")
            }
            families[family]!.samples.append(sample)
        }
    }

    /// The typed family a sample belongs to: its own name, or a histogram's `_bucket`, `_sum`, `_count`.
    private func family(of name: String) -> String? {
        if families[name]?.type != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if families[base]?.type == "histogram" { return base }
        }
        return nil
    }

    private static func sample(_ line: Substring) throws -> Sample {
        var rest = line[...]
        let name = String(rest.prefix { $0 != "{" && $0 != " " })
        try checkName(name)
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix { $0 != "=" })
                try checkName(label)
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { throw Invalid(description: "label \(label) has no quoted value: \(line)") }
                rest = rest.dropFirst(2)
                var value = ""
                while true {
                    guard let character = rest.popFirst() else {
                        throw Invalid(description: "an unterminated label value: \(line)")
                    }
                    if character == "\"" { break }
                    if character == "\n" { throw Invalid(description: "a raw newline in a label value") }
                    guard character == "\\" else {
                        value.append(character)
                        continue
                    }
                    switch rest.popFirst() {
                    case "\\": value.append("\\")
                    case "\"": value.append("\"")
                    case "n": value.append("\n")
                    default: throw Invalid(description: "a bad escape in a label value: \(line)")
                    }
                }
                guard labels.updateValue(value, forKey: label) == nil else {
                    throw Invalid(description: "label \(label) twice: \(line)")
                }
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw Invalid(description: "no space before the value: \(line)") }
        let fields = rest.dropFirst().split(separator: " ")
        guard (1...2).contains(fields.count), let value = Double(fields[0]) ?? special(fields[0]) else {
            throw Invalid(description: "a malformed value: \(line)")
        }
        return Sample(name: name, labels: labels, value: value)
    }

    private static func special(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: nil
        }
    }

    private static func checkName(_ name: String) throws {
        let valid =
            !name.isEmpty && name.utf8.first.map { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } == true
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: ":"):
                    true
                default: false
                }
            }
        guard valid else { throw Invalid(description: "not a valid name: '\(name)'") }
    }
}
