/// Checking an AI's data. GS1 element strings, human-readable text and Digital Link URIs
/// all come through here, so every way in accepts and refuses the same values.
extension GS1ApplicationIdentifier {
    /// Throws, naming this AI, unless `value` fits its format, check digit and date rules.
    public func validate(_ value: some StringProtocol) throws(CodeError) {
        try validateShape(value)
        try validateMeaning(value)
    }

    /// The element `(code) value`, after validating the value.
    public func element(_ value: some StringProtocol) throws(CodeError) -> GS1Element {
        try validate(value)
        return GS1Element(ai: code, value: String(value))
    }

    /// Length and characters: whether `value` can be this AI's data at all.
    func validateShape(_ value: some StringProtocol) throws(CodeError) {
        let count = value.count
        guard (minLength...maxLength).contains(count) else {
            let needed = isFixedLength ? "\(minLength)" : "\(minLength) to \(maxLength)"
            throw problem("needs \(needed) \(isNumeric ? "digits" : "characters"); this has \(count)")
        }
        var rest = Substring(value)
        var start = 1
        for component in components {
            if component.isOptional && rest.isEmpty { break }
            let part = rest.prefix(component.length.upperBound)
            guard part.count >= component.length.lowerBound else {
                throw problem("has \(count) characters, which do not fit its format \(format)")
            }
            if let bad = part.first(where: { !Self.allows(component.characters, $0) }) {
                throw characterProblem(bad, component.characters, positions: start...(start + part.count - 1))
            }
            rest = rest.dropFirst(part.count)
            start += part.count
        }
    }

    /// Check digit and date: whether well-shaped data makes sense.
    func validateMeaning(_ value: some StringProtocol) throws(CodeError) {
        if hasCheckDigit, let key = components.first,
            let error = GTIN.checkDigitError(value.prefix(key.length.upperBound))
        {
            throw problem(": " + error.message)
        }
        if let dateFormat {
            try validateDate(value.compactMap(ASCII.digit), dateFormat)
        }
    }

    private func validateDate(_ digits: [Int], _ format: DateFormat) throws(CodeError) {
        func pair(_ index: Int) -> Int { digits[index] * 10 + digits[index + 1] }
        func shown(_ index: Int) -> String { "\(digits[index])\(digits[index + 1])" }
        func checkDate(at index: Int) throws(CodeError) {
            let month = pair(index + 2)
            let day = pair(index + 4)
            guard (1...12).contains(month) else { throw problem(": the month is \(shown(index + 2)); months are 01 to 12") }
            guard day <= 31 else { throw problem(": the day is \(shown(index + 4)); days are 00 to 31") }
        }
        try checkDate(at: 0)
        switch format {
        case .date: break
        case .dateRange: if digits.count == 12 { try checkDate(at: 6) }
        case .dateTime:
            // The format allows only whole fields, but N..4 in 8008 could end half-way.
            let fields = [("hour", 23), ("minute", 59), ("second", 59)]
            for (field, index) in zip(fields, stride(from: 6, to: digits.count, by: 2)) {
                guard index + 1 < digits.count else { throw problem(": the \(field.0) has only one digit") }
                guard pair(index) <= field.1 else {
                    throw problem(": the \(field.0) is \(shown(index)); it must be at most \(field.1)")
                }
            }
        }
    }

    private func characterProblem(_ bad: Character, _ set: CharacterSet, positions: ClosedRange<Int>) -> CodeError {
        switch set {
        case .digits where isNumeric:
            problem("takes only digits; \(ASCII.quoted(bad)) is not one")
        case .digits:
            problem(
                "takes digits in characters \(positions.lowerBound) to \(positions.upperBound); \(ASCII.quoted(bad)) is not one")
        case .cset82:
            problem("cannot hold \(ASCII.quoted(bad)); GS1 allows letters, digits and !\"%&'()*+,-./:;<=>?_")
        case .cset39:
            problem("cannot hold \(ASCII.quoted(bad)); it allows A-Z, digits, #, - and /")
        }
    }

    /// An error whose message starts with this AI in parentheses.
    private func problem(_ text: String) -> CodeError {
        CodeError("(\(code))" + (text.hasPrefix(":") ? text : " " + text))
    }

    static func allows(_ set: CharacterSet, _ char: Character) -> Bool {
        guard let byte = char.asciiValue, char.unicodeScalars.count == 1 else { return false }
        switch set {
        case .digits: return (0x30...0x39).contains(byte)
        case .cset39: return (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || [0x23, 0x2D, 0x2F].contains(byte)
        case .cset82:
            return byte == 0x21 || byte == 0x22 || (0x25...0x3F).contains(byte) || (0x41...0x5A).contains(byte)
                || byte == 0x5F || (0x61...0x7A).contains(byte)
        }
    }
}
