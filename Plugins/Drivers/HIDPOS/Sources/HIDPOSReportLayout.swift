/// Where a HID POS barcode scanner (usage page 0x8C) puts a read in its input reports,
/// found in its report descriptor: the Decoded Data bytes (usage 0xFE), the AIM symbology
/// identifier (0xFB–0xFD), the Decode Data Continued flag (0xFF), and the data length when
/// the report has one. Offsets differ between makers, so they are never assumed.
struct HIDPOSReportLayout: Equatable, Sendable {
    var reportID: UInt8
    var numbered: Bool
    /// Byte offsets after the report ID.
    var dataOffset: Int
    var dataCount: Int
    var symbologyOffsets: [Int]
    var lengthOffset: Int?
    var continuedBit: Int?

    static let page: UInt16 = 0x8C
    static let decodedData: UInt16 = 0xFE
    static let continued: UInt16 = 0xFF
    static let symbologyIdentifiers: [UInt16] = [0xFB, 0xFC, 0xFD]

    /// The 64-byte report most scanners send (Honeywell-style): ID 2, length, three AIM bytes,
    /// 56 data bytes, vendor bytes, and "more follows" in bit 0 of the last byte. Used when the
    /// descriptor cannot be read (a FIFO standing in for hidraw).
    static let common = HIDPOSReportLayout(
        reportID: 2, numbered: true, dataOffset: 4, dataCount: 56, symbologyOffsets: [1, 2, 3], lengthOffset: 0,
        continuedBit: 62 * 8)

    init(
        reportID: UInt8, numbered: Bool, dataOffset: Int, dataCount: Int, symbologyOffsets: [Int], lengthOffset: Int?,
        continuedBit: Int?
    ) {
        self.reportID = reportID
        self.numbered = numbered
        self.dataOffset = dataOffset
        self.dataCount = dataCount
        self.symbologyOffsets = symbologyOffsets
        self.lengthOffset = lengthOffset
        self.continuedBit = continuedBit
    }

    /// The layout of the report that carries Decoded Data; nil when the device has none (it
    /// is not a HID POS scanner, or the descriptor hides it).
    init?(descriptor: HIDReportDescriptor) {
        guard let data = descriptor.inputs.first(where: { $0.has(page: Self.page, usage: Self.decodedData) }),
            data.bitSize == 8, data.bitOffset % 8 == 0
        else { return nil }
        let report = descriptor.inputs.filter { $0.reportID == data.reportID }
        func byteOffset(of usage: UInt16) -> Int? {
            report.first { $0.has(page: Self.page, usage: usage) && $0.bitSize == 8 && $0.bitOffset % 8 == 0 }
                .map { $0.bitOffset / 8 }
        }
        reportID = data.reportID
        numbered = descriptor.numbered
        dataOffset = data.bitOffset / 8
        dataCount = data.isVariable ? report.filter { $0.has(page: Self.page, usage: Self.decodedData) }.count : data.count
        symbologyOffsets = Self.symbologyIdentifiers.compactMap(byteOffset(of:))
        continuedBit = report.first { $0.has(page: Self.page, usage: Self.continued) }?.bitOffset
        // A byte of its own before the data that is none of the above: the data's length, as
        // Honeywell-style reports have it. Checked against the data's size when read.
        let known = Self.symbologyIdentifiers + [Self.decodedData, Self.continued]
        lengthOffset = report.first {
            !$0.isConstant && $0.bitSize == 8 && $0.count == 1 && $0.bitOffset % 8 == 0 && $0.bitOffset < data.bitOffset
                && !($0.usagePage == Self.page && $0.usages.contains { known.contains($0) })
        }.map { $0.bitOffset / 8 }
    }

    /// One report's part of a read: its data, the AIM identifier when the report has one,
    /// and whether more reports follow. Nil for another report or one too short.
    func chunk(of report: [UInt8]) -> HIDPOSChunk? {
        var body = report[...]
        if numbered {
            guard body.first == reportID else { return nil }
            body = body.dropFirst()
        }
        let bytes = Array(body)
        // Every byte the layout reads must be there: a device may send reports shorter than
        // its own descriptor says.
        let needed = ([dataOffset + dataCount] + symbologyOffsets.map { $0 + 1 } + [lengthOffset.map { $0 + 1 } ?? 0]).max()!
        guard bytes.count >= needed else { return nil }
        var data = Array(bytes[dataOffset..<(dataOffset + dataCount)])
        if let lengthOffset, Int(bytes[lengthOffset]) <= dataCount {
            data = Array(data.prefix(Int(bytes[lengthOffset])))
        } else {
            while data.last == 0 { data.removeLast() }  // zero-padded
        }
        let aim = symbologyOffsets.map { bytes[$0] }
        let more = continuedBit.map { bit in bit / 8 < bytes.count && bytes[bit / 8] & (1 << (bit % 8)) != 0 } ?? false
        return HIDPOSChunk(
            data: data, aim: aim.count == 3 && aim[0] == UInt8(ascii: "]") ? String(decoding: aim, as: UTF8.self) : nil,
            more: more)
    }
}

struct HIDPOSChunk: Equatable, Sendable {
    var data: [UInt8]
    var aim: String?
    var more: Bool
}
