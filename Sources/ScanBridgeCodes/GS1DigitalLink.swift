/// GS1 Digital Link URIs (GS1 Digital Link URI Syntax; canonical form §4.12), the web
/// addresses in GS1 QR codes: `https://id.gs1.org/01/09506000134352/10/ABC1?17=251231`.
///
/// The host and any path prefix are free (`https://example.com/shop/01/…`); what makes a
/// URI a Digital Link is a primary key and its value in the path, followed by that key's
/// qualifiers in order, and AIs in the query.
public enum GS1DigitalLink {
    /// The elements of a Digital Link: primary key, path qualifiers, then query AIs in order.
    /// GTIN-8/12/13 in the URI come back as 14 digits.
    ///
    /// Returns nil when `uri` is not an http(s) URI whose path has a primary key with a value
    /// of the key's length and characters, so other URLs pass through as plain text. Throws
    /// when it is one but something is wrong: a check digit, a date, a malformed
    /// percent-encoding, or an AI value in the query. Query keys that are not AIs are ignored.
    public static func parse(_ uri: String) throws(CodeError) -> [GS1Element]? {
        guard let (path, query) = pathAndQuery(of: uri),
            var elements = try pathElements(path.split(separator: "/"))
        else { return nil }
        for pair in query.split(separator: "&") {
            let rawKey = pair.prefix { $0 != "=" }
            guard let key = percentDecoded(rawKey), let ai = GS1ApplicationIdentifier.lookup(aiCode(key[...])) else {
                continue
            }
            let element = try element(ai, pair.dropFirst(rawKey.count + 1))
            if let earlier = elements.first(where: { $0.ai == element.ai }) {
                guard earlier.value == element.value else {
                    throw CodeError("(\(ai.code)) appears twice with different values: \(earlier.value) and \(element.value)")
                }
                continue
            }
            elements.append(element)
        }
        return elements
    }

    /// Primary keys with the qualifier sequences each allows: a path may use any of a
    /// sequence's qualifiers, in the sequence's order.
    private static let keyQualifiers: [String: [[String]]] = [
        "01": [["22", "10", "21"], ["235"]],
        "8006": [["22", "10", "21"]],
        "414": [["254"], ["7040"]],
        "417": [["7040"]],
        "8010": [["8011"]],
        "8017": [["8019"]],
        "8018": [["8019"]],
        "00": [], "253": [], "255": [], "401": [], "402": [], "8003": [], "8004": [], "8013": [],
    ]

    /// The short names of the first Digital Link release, still printed on packs.
    private static let shortNames: [Substring: String] = ["gtin": "01", "lot": "10", "ser": "21", "exp": "17", "cpv": "22"]

    private static func aiCode(_ name: Substring) -> String { shortNames[name] ?? String(name) }

    /// The elements of the first run of segments that is a primary key, its value and
    /// allowed qualifier pairs up to the end of the path; nil when there is none.
    private static func pathElements(_ segments: [Substring]) throws(CodeError) -> [GS1Element]? {
        for start in segments.indices where (segments.count - start) % 2 == 0 {
            let code = aiCode(segments[start])
            guard let sequences = keyQualifiers[code], let key = GS1ApplicationIdentifier.lookup(code),
                let keyValue = percentDecoded(segments[start + 1]).map({ normalized($0, for: key) }),
                (try? key.validateShape(keyValue)) != nil
            else { continue }
            let pairs = stride(from: start + 2, to: segments.count, by: 2).map { (aiCode(segments[$0]), segments[$0 + 1]) }
            guard allows(pairs.map(\.0), sequences) else { continue }
            // From here on this is a Digital Link, so a bad value is an error, not a reason to skip.
            var elements = [try key.element(keyValue)]
            for (code, raw) in pairs {
                // Safe: every qualifier in `keyQualifiers` is in the AI table.
                guard let qualifier = GS1ApplicationIdentifier.lookup(code) else { continue }
                elements.append(try element(qualifier, raw))
            }
            return elements
        }
        return nil
    }

    /// True when `codes` appear, in order, within one of `sequences`.
    private static func allows(_ codes: [String], _ sequences: [[String]]) -> Bool {
        codes.isEmpty
            || sequences.contains { sequence in
                var remaining = sequence[...]
                return codes.allSatisfy { code in
                    guard let found = remaining.firstIndex(of: code) else { return false }
                    remaining = remaining[(found + 1)...]
                    return true
                }
            }
    }

    /// The validated element for an AI and its still percent-encoded value.
    private static func element(_ ai: GS1ApplicationIdentifier, _ raw: Substring) throws(CodeError) -> GS1Element {
        guard let value = percentDecoded(raw) else {
            throw CodeError("(\(ai.code)) has a malformed percent-encoding: \(raw)")
        }
        return try ai.element(normalized(value, for: ai))
    }

    /// GTIN-8/12/13 padded to GTIN-14, as element strings always carry them.
    private static func normalized(_ value: String, for ai: GS1ApplicationIdentifier) -> String {
        guard ai.code == "01", GTIN.lengths.contains(value.count), ASCII.firstNonDigit(in: value) == nil else { return value }
        return GTIN.padded(value)
    }
}
