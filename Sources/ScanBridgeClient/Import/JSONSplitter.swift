import ScanBridgeModel

/// Splits a stream of JSON into its top-level elements without parsing the whole: either
/// one array (`[{…}, {…}, …]`, the elements handed out as they complete) or JSON Lines
/// (one value per line). It holds one element at a time, never the file; each element's
/// bytes are left for `JSONValue(parsing:)`, so a broken element costs only itself.
///
/// The layout is told by the first byte that is not white space (after a UTF-8 byte order
/// mark): `[` is an array, `{` JSON Lines; anything else is refused. Each element carries
/// the physical line it starts on.
///
/// In an array, brackets that do not match, a missing `]` or data after it are thrown as
/// an `ImportProblem` and end the splitting: past such a fault no element boundary can be
/// trusted. In JSON Lines every line stands alone.
public struct JSONSplitter: ChunkedParser, Sendable {
    /// The bytes of one top-level element, and the line it starts on (1-based).
    public struct Element: Sendable, Hashable {
        public var line: Int
        public var bytes: [UInt8]

        public init(line: Int, bytes: [UInt8]) {
            self.line = line
            self.bytes = bytes
        }
    }

    public enum Layout: Sendable, Hashable {
        case array, lines
    }

    /// An element longer than this is refused (it is an import, not a document store).
    public static let maxElementBytes = 16 << 20

    /// Known once the first byte that is not white space was read.
    public private(set) var layout: Layout?

    private enum State: Sendable, Equatable {
        case start
        /// In an array, before an element: after `[` (`first`) or after a comma.
        case beforeElement(first: Bool)
        case inElement
        case afterArray
        case line
        case done
    }

    private var input = InputBuffer()
    private var state = State.start
    private var line = 1
    private var elementLine = 1
    private var element: [UInt8] = []
    /// The `[` and `{` open inside the current array element.
    private var openers: [UInt8] = []
    private var strings = JSONStringScanner()

    public init() {}

    /// Adds the next bytes of the input.
    public mutating func append(_ chunk: some Sequence<UInt8>) {
        guard state != .done else { return }
        input.append(chunk)
    }

    /// Says that the input is complete.
    public mutating func finish() {
        input.finish()
    }

    /// The next complete element; nil when it needs more input (or, after `finish()`, at the end).
    public mutating func next() throws(ImportProblem) -> Element? {
        do {
            while state != .done, let step = input.step() {
                if step == .end { return try endOfInput() }
                if let element = try scan() { return element }
            }
            return nil
        } catch {
            state = .done
            throw error
        }
    }

    // MARK: Scanning

    private static let lineFeed = UInt8(ascii: "\n")

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Reads bytes until an element ends (returned) or the buffer is used up (nil).
    private mutating func scan() throws(ImportProblem) -> Element? {
        let bytes = input.bytes
        var index = input.position
        defer { input.position = index }
        return try bytes.withUnsafeBufferPointer { buffer throws(ImportProblem) -> Element? in
            while index < buffer.count {
                let byte = buffer[index]
                switch state {
                case .start, .beforeElement, .afterArray:
                    if Self.isWhitespace(byte) {
                        if byte == Self.lineFeed { line += 1 }
                        index += 1
                    } else {
                        try significant(byte, at: &index)
                    }
                case .inElement:
                    if let element = try scanElement(buffer, at: &index) { return element }
                case .line:
                    var stop = index
                    while stop < buffer.count, buffer[stop] != Self.lineFeed { stop += 1 }
                    try take(UnsafeBufferPointer(rebasing: buffer[index..<stop]))
                    index = stop
                    if index < buffer.count {
                        index += 1
                        line += 1
                        let element = endElement()
                        elementLine = line
                        if let element { return element }
                    }
                case .done:
                    return nil
                }
            }
            return nil
        }
    }

    /// The first byte that is not white space where an element, `[` or nothing may stand.
    private mutating func significant(_ byte: UInt8, at index: inout Int) throws(ImportProblem) {
        switch state {
        case .start:
            elementLine = line
            if byte == UInt8(ascii: "[") {
                layout = .array
                state = .beforeElement(first: true)
                index += 1
            } else if byte == UInt8(ascii: "{") {
                layout = .lines
                state = .line
            } else {
                throw ImportProblem(
                    line: line,
                    "this is not JSON to import: that is one array of objects, or JSON Lines (one object "
                        + "per line), but this line starts with \(describeByte(byte))")
            }
        case .beforeElement(let first):
            if byte == UInt8(ascii: "]"), first {
                state = .afterArray
                index += 1
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: ",") {
                throw ImportProblem(line: line, "the array has an empty element (a comma too many)")
            } else {
                elementLine = line
                state = .inElement
            }
        default:
            throw ImportProblem(
                line: line, "unexpected \(describeByte(byte)) after the array's closing ']'; an import file holds one array")
        }
    }

    /// Reads an array element up to the comma or `]` that ends it.
    private mutating func scanElement(_ buffer: UnsafeBufferPointer<UInt8>, at index: inout Int) throws(ImportProblem) -> Element?
    {
        var stop = index
        defer { index = stop }
        while stop < buffer.count {
            let byte = buffer[stop]
            if byte == Self.lineFeed { line += 1 }
            if strings.consume(byte) {
                stop += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                openers.append(byte)
            case UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ","):
                if let opener = openers.last {
                    guard byte != UInt8(ascii: ",") else { break }
                    guard opener == (byte == UInt8(ascii: "]") ? UInt8(ascii: "[") : UInt8(ascii: "{")) else {
                        throw ImportProblem(
                            line: line,
                            "\(describeByte(byte)) closes a '\(Character(Unicode.Scalar(opener)))': "
                                + "the brackets of the element that starts on line \(elementLine) do not match")
                    }
                    openers.removeLast()
                } else {
                    guard byte != UInt8(ascii: "}") else {
                        throw ImportProblem(
                            line: line,
                            "'}' closes nothing: the brackets of the element that starts on line \(elementLine) do not match")
                    }
                    try take(UnsafeBufferPointer(rebasing: buffer[index..<stop]))
                    stop += 1
                    state = byte == UInt8(ascii: ",") ? .beforeElement(first: false) : .afterArray
                    if let element = endElement() { return element }
                    throw ImportProblem(line: line, "the array has an empty element (a comma too many)")
                }
            default:
                break
            }
            stop += 1
        }
        try take(UnsafeBufferPointer(rebasing: buffer[index..<stop]))
        return nil
    }

    private mutating func take(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImportProblem) {
        element.append(contentsOf: bytes)
        guard element.count <= Self.maxElementBytes else {
            throw ImportProblem(line: elementLine, "this element is longer than 16 MiB; is a bracket or a quote missing?")
        }
    }

    /// The element read so far, without surrounding white space; nil when there is none.
    private mutating func endElement() -> Element? {
        defer { element.removeAll(keepingCapacity: true) }
        guard let first = element.firstIndex(where: { !Self.isWhitespace($0) }),
            let last = element.lastIndex(where: { !Self.isWhitespace($0) })
        else { return nil }
        return Element(line: elementLine, bytes: Array(element[first...last]))
    }

    private mutating func endOfInput() throws(ImportProblem) -> Element? {
        let ended = state
        state = .done
        switch ended {
        case .beforeElement, .inElement:
            throw ImportProblem(
                line: elementLine, "the input ends inside the JSON array: its closing ']' is missing (is the file cut short?)")
        case .line:
            return endElement()
        case .start, .afterArray, .done:
            return nil
        }
    }
}
