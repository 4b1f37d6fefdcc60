/// The daemon's answers to one run's `scan.inject` calls, read as they come: for each
/// request id, the event's `seq` and its resolution (`handler status`), found without
/// parsing the JSON so the injecting thread stays as lean as the daemon's clients.
struct InjectionAnswers {
    private(set) var seqs: [Int?]
    private(set) var outcomes: [String?]
    private(set) var count = 0
    private(set) var errors = 0
    /// The first answer that was an error, to say what went wrong.
    private(set) var firstError: String?

    init(count: Int) {
        seqs = Array(repeating: nil, count: count)
        outcomes = Array(repeating: nil, count: count)
    }

    var isComplete: Bool { count + errors >= seqs.count }

    mutating func record(_ line: ArraySlice<UInt8>) {
        guard let id = JSONScan.number(after: #""id":"#, in: line), seqs.indices.contains(id) else { return }
        guard let seq = JSONScan.number(after: #""seq":"#, in: line) else {
            errors += 1
            if firstError == nil { firstError = String(decoding: line.prefix(300), as: UTF8.self) }
            return
        }
        seqs[id] = seq
        count += 1
        // One answer, one event: its resolution is the only one in the line.
        JSONScan.resolutions(in: line) { outcomes[id] = $0 }
    }
}

/// Members of a JSON text found by their bytes: enough for the benchmark's own lines, whose
/// members it knows, and far cheaper than parsing on a thread that is being timed.
enum JSONScan {
    /// The digits after the first `marker` in `bytes`, as a number.
    static func number(after marker: String, in bytes: ArraySlice<UInt8>) -> Int? {
        guard var index = end(of: marker, in: bytes) else { return nil }
        var value = 0
        let start = index
        while index < bytes.endIndex, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
        }
        return index > start ? value : nil
    }

    /// Every resolution in `bytes`, in order, as `handler status`.
    static func resolutions(in bytes: ArraySlice<UInt8>, _ body: (String) -> Void) {
        var rest = bytes
        while let handler = string(after: #""resolution":{"handler":""#, in: rest),
            let status = string(after: #""status":""#, in: rest[handler.endIndex...])
        {
            body(String(decoding: handler, as: UTF8.self) + " " + String(decoding: status, as: UTF8.self))
            rest = rest[status.endIndex...]
        }
    }

    /// The characters after the first `marker` in `bytes`, up to the next quote.
    static func string(after marker: String, in bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let start = end(of: marker, in: bytes), let quote = bytes[start...].firstIndex(of: 0x22) else { return nil }
        return bytes[start..<quote]
    }

    private static func end(of marker: String, in bytes: ArraySlice<UInt8>) -> Int? {
        let marker = marker.utf8
        guard let head = marker.first, bytes.count >= marker.count else { return nil }
        var start = bytes.startIndex
        while start <= bytes.endIndex - marker.count {
            if bytes[start] == head, bytes[start..<(start + marker.count)].elementsEqual(marker) {
                return start + marker.count
            }
            start += 1
        }
        return nil
    }
}
