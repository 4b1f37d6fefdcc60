import ScanBridgeModel

extension IncomingMessage {
    /// Whether `bytes` is a batch of more than `limit` elements, told by scanning the bytes for
    /// the commas between its top-level elements, without parsing them: a line of a million
    /// tiny elements costs a scan, not a million parsed values the daemon would then refuse.
    /// A line that is no batch at all (or is malformed before its limit is passed) is false,
    /// and goes to `parse` as any other line.
    public static func isBatch(_ bytes: some Collection<UInt8>, longerThan limit: Int) -> Bool {
        // Through contiguous storage where there is one: this generic is not specialized for
        // callers in other modules, and a walk through it costs a witness call a byte.
        bytes.withContiguousStorageIfAvailable { countsPast(limit, $0) } ?? countsPast(limit, bytes)
    }

    private static func countsPast(_ limit: Int, _ bytes: some Collection<UInt8>) -> Bool {
        var depth = 0
        var strings = JSONStringScanner()
        var separators = 0
        var started = false
        for byte in bytes {
            if !started {
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") { continue }
                guard byte == UInt8(ascii: "[") else { return false }
                started = true
                depth = 1
                continue
            }
            if strings.consume(byte) { continue }
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return false }
            case UInt8(ascii: ",") where depth == 1:
                separators += 1
                if separators >= limit { return true }
            default: break
            }
        }
        return false
    }
}
