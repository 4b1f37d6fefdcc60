/// The input fields of a HID report descriptor (HID 1.11 §6.2.2): where each field sits in
/// which report, and what it is (usage page and usage). Only what reading input reports
/// needs: output and feature reports are stepped over, collections only nest.
struct HIDReportDescriptor: Equatable, Sendable {
    struct Field: Equatable, Sendable {
        /// 0 when the device does not number its reports.
        var reportID: UInt8
        var usagePage: UInt16
        /// The usage of each element (one for a variable field, the list for an array).
        var usages: [UInt16]
        /// Bit offset in the report, after the report ID byte when there is one.
        var bitOffset: Int
        var bitSize: Int
        var count: Int
        var isConstant: Bool
        var isVariable: Bool

        func has(page: UInt16, usage: UInt16) -> Bool { usagePage == page && usages.contains(usage) }
    }

    var inputs: [Field]
    /// Whether reports start with a report ID byte.
    var numbered: Bool

    /// The byte length of input report `id`, without its ID byte.
    func inputLength(of id: UInt8) -> Int {
        let bits = inputs.filter { $0.reportID == id }.map { $0.bitOffset + $0.bitSize * $0.count }.max() ?? 0
        return (bits + 7) / 8
    }

    struct Malformed: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// A device writes its own descriptor: these bound what one can make the daemon hold.
    /// Input fields over every report (a scanner has a few hundred at most).
    static let maxFields = 4096
    /// Usages one main item may list (Usage items and Usage Minimum…Maximum ranges together).
    static let maxUsages = 4096
    /// The bits of one report: no report can be larger than the kernel's HID buffer
    /// (`HID_MAX_BUFFER_SIZE`), so a descriptor that says otherwise is not a real device's.
    static let maxReportBits = 16_384 * 8

    private struct Globals {
        var usagePage: UInt16 = 0
        var reportSize = 0
        var reportCount = 0
        var reportID: UInt8 = 0
    }

    init(parsing bytes: [UInt8]) throws(Malformed) {
        var inputs: [Field] = []
        var globals = Globals()
        var stack: [Globals] = []
        var usages: [UInt32] = []
        var usageMinimum: UInt32?
        var offsets: [UInt8: Int] = [:]
        var numbered = false
        var index = 0
        while index < bytes.count {
            let prefix = bytes[index]
            if prefix == 0xFE {  // a long item: its size is in the next byte
                guard index + 2 < bytes.count else {
                    throw Malformed(description: "a long item runs past the end at byte \(index)")
                }
                index += 3 + Int(bytes[index + 1])
                continue
            }
            let size = [0, 1, 2, 4][Int(prefix & 0x03)]
            guard index + size < bytes.count else {
                throw Malformed(description: "item 0x\(String(prefix, radix: 16)) at byte \(index) runs past the end")
            }
            let data = bytes[(index + 1)..<(index + 1 + size)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            index += 1 + size
            switch (prefix >> 2) & 0x03 {
            case 0:  // main
                switch prefix >> 4 {
                case 0x8:  // Input
                    let isVariable = data & 0x02 != 0
                    var local = usages
                    if local.isEmpty, let minimum = usageMinimum { local = [minimum] }
                    let pages = Self.split(local, defaultPage: globals.usagePage)
                    let offset = offsets[globals.reportID, default: 0]
                    guard globals.reportSize > 0, globals.reportSize <= 32 || data & 0x01 != 0 else {
                        throw Malformed(description: "an input field of \(globals.reportSize) bits")
                    }
                    let bits = offset + globals.reportSize * globals.reportCount
                    guard bits <= Self.maxReportBits else {
                        throw Malformed(description: "report \(globals.reportID) is over \(Self.maxReportBits / 8) bytes")
                    }
                    // A variable data field is one field per element; an array or constant is one.
                    let perElement = isVariable && data & 0x01 == 0
                    let fields = perElement ? globals.reportCount : 1
                    guard inputs.count + fields <= Self.maxFields else {
                        throw Malformed(description: "over \(Self.maxFields) input fields")
                    }
                    if perElement {
                        for element in 0..<globals.reportCount {
                            let usage = pages.usages.isEmpty ? 0 : pages.usages[min(element, pages.usages.count - 1)]
                            inputs.append(
                                Field(
                                    reportID: globals.reportID, usagePage: pages.page, usages: [usage],
                                    bitOffset: offset + element * globals.reportSize, bitSize: globals.reportSize, count: 1,
                                    isConstant: false, isVariable: true))
                        }
                    } else {
                        inputs.append(
                            Field(
                                reportID: globals.reportID, usagePage: pages.page, usages: pages.usages, bitOffset: offset,
                                bitSize: globals.reportSize, count: globals.reportCount, isConstant: data & 0x01 != 0,
                                isVariable: isVariable))
                    }
                    offsets[globals.reportID] = bits
                case 0x9, 0xB, 0xA, 0xC: break  // Output, Feature, Collection, End Collection
                default: throw Malformed(description: "unknown main item 0x\(String(prefix, radix: 16))")
                }
                usages = []
                usageMinimum = nil
            case 1:  // global
                switch prefix >> 4 {
                case 0x0: globals.usagePage = UInt16(truncatingIfNeeded: data)
                case 0x7: globals.reportSize = Int(data)
                case 0x8:
                    guard data > 0, data <= 255 else { throw Malformed(description: "report ID \(data)") }
                    globals.reportID = UInt8(data)
                    numbered = true
                case 0x9: globals.reportCount = Int(data)
                case 0xA: stack.append(globals)  // Push
                case 0xB:  // Pop
                    guard let top = stack.popLast() else { throw Malformed(description: "a Pop with nothing pushed") }
                    globals = top
                default: break  // logical and physical extents, unit, exponent
                }
                guard globals.reportCount <= 4096, globals.reportSize <= 4096 else {
                    throw Malformed(description: "a report count or size over 4096")
                }
            case 2:  // local
                switch prefix >> 4 {
                case 0x0:
                    guard usages.count < Self.maxUsages else {
                        throw Malformed(description: "over \(Self.maxUsages) usages for one item")
                    }
                    usages.append(size == 4 ? data : data & 0xFFFF)
                case 0x1: usageMinimum = size == 4 ? data : data & 0xFFFF
                case 0x2:
                    if let minimum = usageMinimum {
                        let maximum = size == 4 ? data : data & 0xFFFF
                        guard maximum >= minimum, usages.count + Int(maximum - minimum) < Self.maxUsages else {
                            throw Malformed(description: "a usage range of \(minimum)…\(maximum)")
                        }
                        usages += Array(minimum...maximum)
                        usageMinimum = nil
                    }
                default: break  // designators, strings, delimiters
                }
            default:
                throw Malformed(description: "a reserved item type at byte \(index)")
            }
        }
        self.inputs = inputs
        self.numbered = numbered
    }

    /// Usages given with their page (4-byte Usage items) keep it; the others take the global page.
    private static func split(_ usages: [UInt32], defaultPage: UInt16) -> (page: UInt16, usages: [UInt16]) {
        // Typed: Swift 6.2 takes `page` for an optional otherwise.
        let page: UInt16 = usages.first.map { $0 > 0xFFFF ? UInt16($0 >> 16) : defaultPage } ?? defaultPage
        return (page, usages.map { UInt16(truncatingIfNeeded: $0) })
    }
}
