/// Joins the reports of one read: a label longer than a report's data field comes in
/// several, each but the last flagged Decode Data Continued. A pure state machine; a read
/// whose last report never comes is dropped after `idle`, reported as incomplete.
struct HIDPOSAssembler {
    enum Output: Equatable, Sendable {
        case read([UInt8], aim: String?)
        case tooLong(length: Int)
        case incomplete(length: Int)
    }

    var idle: Duration = .milliseconds(500)
    var maxLength = 10_000
    private var data: [UInt8] = []
    private var length = 0
    private var aim: String?
    private var last: Duration?

    var deadline: Duration? {
        last.map { $0 + idle }
    }

    mutating func add(_ chunk: HIDPOSChunk, at time: Duration) -> [Output] {
        var outputs: [Output] = []
        if let last, time - last > idle, let out = flush() { outputs.append(out) }
        if length == 0 { aim = chunk.aim }
        length += chunk.data.count
        if length <= maxLength { data += chunk.data }
        if chunk.more {
            last = time
        } else if let out = finish() {
            outputs.append(out)
        }
        return outputs
    }

    /// Called when `deadline` passes: a read still waiting for its last report.
    mutating func flush() -> Output? {
        defer { reset() }
        return length > 0 ? .incomplete(length: length) : nil
    }

    private mutating func finish() -> Output? {
        defer { reset() }
        if length > maxLength { return .tooLong(length: length) }
        return data.isEmpty ? nil : .read(data, aim: aim)
    }

    private mutating func reset() {
        data = []
        length = 0
        aim = nil
        last = nil
    }
}
