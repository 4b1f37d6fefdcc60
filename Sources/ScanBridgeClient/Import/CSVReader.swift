/// A streaming reader of RFC 4180 CSV: give it the input in chunks of any size, take
/// records out as they complete. It holds one record at a time, never the file.
///
/// - Fields are separated by a delimiter: a comma, a semicolon or a tab, given or found in
///   the header line (`CSVDelimiter`). A field in double quotes may hold delimiters, line
///   breaks and doubled quotes (`""` is one `"`). A quote inside an unquoted field is kept.
/// - Records end at LF, CRLF or CR. A UTF-8 byte order mark at the start is skipped, and
///   empty lines are skipped.
/// - Every record must have as many fields as the first one (the header).
/// - Each record carries the physical line it starts on, counting the line breaks inside
///   quoted fields, so a message can point at the line an editor shows.
///
/// ```swift
/// var reader = CSVReader()
/// reader.append(chunk)              // repeatedly; then
/// reader.finish()
/// while let record = try reader.next() { … }   // nil: needs more input, or done
/// ```
///
/// A record that breaks the rules is thrown as an `ImportProblem` naming its line; the
/// next call to `next()` goes on with the record after it, unless the fault leaves no way
/// to find it (`isStopped`).
public struct CSVReader: ChunkedParser, Sendable {
    /// One record: its fields, and the line it starts on (1-based).
    public struct Record: Sendable, Hashable {
        public var line: Int
        public var fields: [String]

        public init(line: Int, fields: [String]) {
            self.line = line
            self.fields = fields
        }
    }

    /// A field longer than this is refused: it is an unclosed quote swallowing the file.
    public static let maxFieldBytes = 1 << 20

    /// The number of fields every record must have: the first record's, once it was read.
    public private(set) var expectedFieldCount: Int?

    /// After a fault no record boundary can be found past (a quote never closed), the reader
    /// stops: it takes no more input and `next()` returns nil.
    public private(set) var isStopped = false

    private enum State: Sendable {
        case fieldStart, unquoted, quoted, quoteInQuoted, afterCarriageReturn, skippingLine
    }

    private var input = InputBuffer()
    private var isDone = false
    private var state = State.fieldStart
    /// The physical line of the next byte to read.
    private var line = 1
    private var recordLine = 1
    private var quoteLine = 1
    private var recordStarted = false
    private var fields: [String] = []
    private var field: [UInt8] = []
    /// What is wrong with the record being read; thrown when it ends.
    private var recordError: String?

    /// The field separator; nil until the header line was read, when it is detected.
    public private(set) var delimiter: UInt8?

    /// - Parameter delimiter: the field separator; nil detects it from the header line.
    public init(delimiter: UInt8? = UInt8(ascii: ",")) {
        self.delimiter = delimiter
    }

    /// Adds the next bytes of the input.
    public mutating func append(_ chunk: some Sequence<UInt8>) {
        guard !isStopped else { return }
        input.append(chunk)
    }

    /// Says that the input is complete: the last record may end without a line break.
    public mutating func finish() {
        input.finish()
    }

    /// The next complete record; nil when it needs more input (or, after `finish()`, at the end).
    public mutating func next() throws(ImportProblem) -> Record? {
        while !isDone, let step = input.step() {
            if step == .end { return try endOfInput() }
            if delimiter == nil {
                // The header line must be whole to tell its separator: wait for more input.
                guard let detected = CSVDelimiter.detect(in: input.bytes[input.position...], isComplete: input.isFinished)
                else { return nil }
                delimiter = detected
            }
            if let record = try scan() { return record }
        }
        return nil
    }

    // MARK: Scanning

    private static let quote = UInt8(ascii: "\"")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// Reads bytes until a record ends (returned) or the buffer is used up (nil).
    private mutating func scan() throws(ImportProblem) -> Record? {
        let comma = delimiter ?? UInt8(ascii: ",")
        let bytes = input.bytes
        var index = input.position
        defer { input.position = index }
        return try bytes.withUnsafeBufferPointer { buffer throws(ImportProblem) -> Record? in
            let end = buffer.count
            while index < end {
                switch state {
                case .fieldStart:
                    if buffer[index] == Self.quote {
                        state = .quoted
                        quoteLine = line
                        recordStarted = true
                        index += 1
                    } else {
                        state = .unquoted
                    }
                case .unquoted:
                    var stop = index
                    while stop < end {
                        let byte = buffer[stop]
                        if byte == comma || byte == Self.lineFeed || byte == Self.carriageReturn { break }
                        stop += 1
                    }
                    if stop > index { recordStarted = true }
                    try take(UnsafeBufferPointer(rebasing: buffer[index..<stop]))
                    index = stop
                    if index < end, let record = try fieldEnded(by: buffer[index], at: &index) { return record }
                case .quoted:
                    var stop = index
                    while stop < end {
                        let byte = buffer[stop]
                        if byte == Self.quote { break }
                        if byte == Self.lineFeed { line += 1 }
                        stop += 1
                    }
                    try take(UnsafeBufferPointer(rebasing: buffer[index..<stop]))
                    index = stop
                    if index < end {
                        state = .quoteInQuoted
                        index += 1
                    }
                case .quoteInQuoted:
                    let byte = buffer[index]
                    if byte == Self.quote {
                        field.append(byte)
                        state = .quoted
                        index += 1
                    } else if byte == comma || byte == Self.lineFeed || byte == Self.carriageReturn {
                        if let record = try fieldEnded(by: byte, at: &index) { return record }
                    } else {
                        recordError =
                            recordError ?? "a quoted field must end at \(Self.name(of: comma)) or the end of the line, "
                            + "but \(describeByte(byte)) follows its closing quote; write a quote inside a quoted field as \"\""
                        state = .skippingLine
                    }
                case .skippingLine:
                    while index < end, buffer[index] != Self.lineFeed, buffer[index] != Self.carriageReturn { index += 1 }
                    if index < end, let record = try recordEnded(by: buffer[index], at: &index) { return record }
                case .afterCarriageReturn:
                    if buffer[index] == Self.lineFeed { index += 1 }
                    state = .fieldStart
                }
            }
            return nil
        }
    }

    /// A comma, LF or CR outside quotes, at `index`: ends the field, and on a line break the record.
    private mutating func fieldEnded(by byte: UInt8, at index: inout Int) throws(ImportProblem) -> Record? {
        closeField()
        if byte == delimiter {
            recordStarted = true
            state = .fieldStart
            index += 1
            return nil
        }
        return try recordEnded(by: byte, at: &index)
    }

    /// A line break outside quotes, at `index`.
    private mutating func recordEnded(by byte: UInt8, at index: inout Int) throws(ImportProblem) -> Record? {
        index += 1
        line += 1
        return try endRecord(then: byte == Self.carriageReturn ? .afterCarriageReturn : .fieldStart)
    }

    /// How a message names the delimiter: `a comma`.
    private static func name(of delimiter: UInt8) -> String {
        CSVDelimiter.name(of: delimiter)
    }

    private mutating func take(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImportProblem) {
        field.append(contentsOf: bytes)
        guard field.count <= Self.maxFieldBytes else {
            isDone = true
            isStopped = true
            throw ImportProblem(
                line: recordLine,
                state == .quoted
                    ? "a quoted field opened on line \(quoteLine) runs on for more than 1 MiB; check for a stray \" there"
                    : "a field is longer than 1 MiB; is this a CSV file?")
        }
    }

    private mutating func closeField() {
        if let text = Self.string(field) {
            fields.append(text)
        } else {
            recordError =
                recordError ?? "this row is not valid UTF-8 text; save the file as UTF-8, "
                + "or give --encoding windows-1252 for a file Excel saved as CSV"
            fields.append("")
        }
        field.removeAll(keepingCapacity: true)
    }

    /// The UTF-8 text of `bytes`; nil when they are not UTF-8. ASCII, the common case, takes
    /// the fast path of `String(decoding:)`: the validating initializer takes a slow one.
    private static func string(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            var high: UInt8 = 0
            for byte in buffer { high |= byte }
            return high < 0x80 ? String(decoding: buffer, as: UTF8.self) : String(validating: buffer, as: UTF8.self)
        }
    }

    /// Hands out the record just read, or throws what was wrong with it; skips empty lines.
    private mutating func endRecord(then next: State) throws(ImportProblem) -> Record? {
        state = next
        let started = recordStarted
        let startLine = recordLine
        let error = recordError
        let record = fields
        fields.removeAll(keepingCapacity: true)
        field.removeAll(keepingCapacity: true)
        recordStarted = false
        recordLine = line
        recordError = nil
        if let error { throw ImportProblem(line: startLine, error) }
        guard started || record != [""] else { return nil }
        if let expected = expectedFieldCount, record.count != expected {
            throw ImportProblem(
                line: startLine,
                "this row has \(record.count) field\(record.count == 1 ? "" : "s") but the header has \(expected); "
                    + "put a field that holds \(Self.name(of: delimiter ?? UInt8(ascii: ","))) in double quotes")
        }
        expectedFieldCount = expectedFieldCount ?? record.count
        return Record(line: startLine, fields: record)
    }

    /// The input ended: the last record may lack its line break; an open quote is an error.
    private mutating func endOfInput() throws(ImportProblem) -> Record? {
        isDone = true
        switch state {
        case .quoted:
            isStopped = true
            let place = quoteLine == recordLine ? "" : " (on line \(quoteLine))"
            throw ImportProblem(
                line: recordLine,
                "a quoted field\(place) is never closed, so the rest of the file was read into it; check for a stray \"")
        case .afterCarriageReturn:
            return nil
        case .fieldStart where !recordStarted:
            return nil
        case .skippingLine:
            return try endRecord(then: .fieldStart)
        case .fieldStart, .unquoted, .quoteInQuoted:
            closeField()
            return try endRecord(then: .fieldStart)
        }
    }
}
