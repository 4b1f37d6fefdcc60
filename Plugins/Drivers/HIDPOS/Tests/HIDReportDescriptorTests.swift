import ScanBridgeTesting
import Testing

@testable import HIDPOSDriver

/// Report descriptors as scanners describe their HID POS reports, parsed into layouts.
struct HIDReportDescriptorTests {
    /// A scanner with the data at bytes 2–57 of report 4 (QUIO-style): no length, no AIM.
    static let dataFirst: [UInt8] = [
        0x05, 0x8C, 0x09, 0x02, 0xA1, 0x01, 0x85, 0x04, 0x75, 0x08,
        0x95, 0x01, 0x81, 0x03,  // one constant byte
        0x09, 0xFE, 0x95, 0x38, 0x81, 0x00,  // Decoded Data, 56 bytes (array)
        0x09, 0xFF, 0x75, 0x01, 0x95, 0x01, 0x81, 0x02, 0x75, 0x07, 0x81, 0x03,
        0xC0,
    ]

    static func report(id: UInt8, length: Int, _ fill: (inout [UInt8]) -> Void) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        fill(&bytes)
        return [id] + bytes
    }

    @Test func theCommonDescriptorGivesTheCommonLayout() throws {
        let descriptor = try HIDReportDescriptor(parsing: HIDPOSReports.commonDescriptor)
        #expect(descriptor.numbered && descriptor.inputLength(of: 2) == 63)
        #expect(HIDPOSReportLayout(descriptor: descriptor) == .common)
    }

    @Test func dataWhereverTheDescriptorPutsIt() throws {
        let layout = try #require(HIDPOSReportLayout(descriptor: try HIDReportDescriptor(parsing: Self.dataFirst)))
        #expect(layout.reportID == 4 && layout.dataOffset == 1 && layout.dataCount == 56)
        #expect(layout.lengthOffset == nil && layout.symbologyOffsets.isEmpty && layout.continuedBit == 57 * 8)
        let report = Self.report(id: 4, length: 58) { bytes in
            bytes.replaceSubrange(1..<14, with: Array("4006381333931".utf8))
        }
        #expect(layout.chunk(of: report) == HIDPOSChunk(data: Array("4006381333931".utf8), aim: nil, more: false))
        #expect(layout.chunk(of: [2] + report.dropFirst()) == nil, "another report ID")
        #expect(layout.chunk(of: [4, 0, 0]) == nil, "a short report")
    }

    @Test func aLongLabelInTwoReportsIsOneRead() {
        let label = Array("0109506000134352" + "10ABC1\u{1D}17251231" + "21" + String(repeating: "S", count: 40) + "91XYZ")
        let bytes = label.map { UInt8($0.asciiValue!) }
        var assembler = HIDPOSAssembler()
        var outputs: [HIDPOSAssembler.Output] = []
        for (index, part) in [Array(bytes.prefix(56)), Array(bytes.dropFirst(56))].enumerated() {
            let report = Self.report(id: 2, length: 63) { body in
                body[0] = UInt8(part.count)
                body.replaceSubrange(1..<4, with: Array("]C1".utf8))
                body.replaceSubrange(4..<(4 + part.count), with: part)
                if index == 0 { body[62] = 1 }
            }
            let chunk = HIDPOSReportLayout.common.chunk(of: report)!
            outputs += assembler.add(chunk, at: .milliseconds(index))
        }
        #expect(outputs == [.read(bytes, aim: "]C1")])
    }

    @Test func aReadWhoseLastReportNeverComesIsIncomplete() {
        var assembler = HIDPOSAssembler()
        #expect(assembler.add(HIDPOSChunk(data: [0x31, 0x32], aim: nil, more: true), at: .zero).isEmpty)
        #expect(assembler.deadline == .milliseconds(500))
        #expect(assembler.flush() == .incomplete(length: 2))
        // A report after the pause starts a new read.
        #expect(assembler.add(HIDPOSChunk(data: [0x33], aim: nil, more: true), at: .seconds(1)).isEmpty)
        #expect(
            assembler.add(HIDPOSChunk(data: [0x34], aim: nil, more: false), at: .seconds(3))
                == [.incomplete(length: 1), .read([0x34], aim: nil)])
    }

    @Test func aLengthLargerThanTheDataIsIgnoredAndPaddingTrimmed() {
        let report = Self.report(id: 2, length: 63) { body in
            body[0] = 200
            body.replaceSubrange(4..<8, with: Array("ABCD".utf8))
        }
        #expect(HIDPOSReportLayout.common.chunk(of: report)?.data == Array("ABCD".utf8))
    }

    @Test func malformedDescriptorsAreClearErrors() {
        #expect(throws: HIDReportDescriptor.Malformed.self) { try HIDReportDescriptor(parsing: [0x05]) }
        #expect(throws: HIDReportDescriptor.Malformed.self) { try HIDReportDescriptor(parsing: [0xB4]) }
        #expect(throws: HIDReportDescriptor.Malformed.self) { try HIDReportDescriptor(parsing: [0x19, 0x00, 0x2A, 0xFF, 0xFF]) }
        #expect(throws: HIDReportDescriptor.Malformed.self) { try HIDReportDescriptor(parsing: [0x85, 0x00]) }
        #expect(throws: HIDReportDescriptor.Malformed.self) {
            try HIDReportDescriptor(parsing: [0x75, 0x40, 0x95, 0x01, 0x81, 0x02])
        }
        // A keyboard: parses, but is no HID POS scanner.
        let keyboard: [UInt8] = [
            0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x75, 0x01,
            0x95, 0x08, 0x81, 0x02, 0x95, 0x06, 0x75, 0x08, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00, 0xC0,
        ]
        #expect(HIDPOSReportLayout(descriptor: try! HIDReportDescriptor(parsing: keyboard)) == nil)
    }

    @Test func aDescriptorCannotMakeTheDaemonHoldMillionsOfFields() {
        // A descriptor as long as the kernel lets a device give (HID_MAX_DESCRIPTOR_SIZE): one-bit
        // fields, as many to an Input item as a report count allows, again and again.
        let fields: [UInt8] =
            [0x05, 0x8C, 0x75, 0x01, 0x96, 0x00, 0x10] + Array(repeating: [0x81, 0x02], count: 2_040).flatMap { $0 }
        #expect(throws: HIDReportDescriptor.Malformed(description: "over 4096 input fields")) {
            try HIDReportDescriptor(parsing: fields)
        }
        // Usage ranges piled up before one array field.
        let usages: [UInt8] =
            [0x05, 0x8C, 0x75, 0x08, 0x95, 0x01] + Array(repeating: [0x19, 0x00, 0x2A, 0xFF, 0x0F], count: 800).flatMap { $0 }
            + [0x81, 0x00]
        #expect(throws: HIDReportDescriptor.Malformed.self) { try HIDReportDescriptor(parsing: usages) }
        // One report larger than Linux's largest.
        let wide: [UInt8] = [0x05, 0x8C, 0x75, 0xFF, 0x96, 0x00, 0x10, 0x81, 0x03]
        #expect(throws: HIDReportDescriptor.Malformed.self) { try HIDReportDescriptor(parsing: wide) }
    }

    @Test func aReportShorterThanItsLayoutIsSkipped() {
        // The AIM bytes after the data, as a descriptor may put them, and a report that ends before them.
        let layout = HIDPOSReportLayout(
            reportID: 2, numbered: true, dataOffset: 0, dataCount: 4, symbologyOffsets: [10, 11, 12], lengthOffset: nil,
            continuedBit: nil)
        #expect(layout.chunk(of: [2] + Array("ABCD".utf8)) == nil)
        #expect(layout.chunk(of: [2] + Array("ABCD".utf8) + Array(repeating: 0, count: 6) + Array("]E0".utf8))?.aim == "]E0")
    }

    @Test func randomBytesNeverCrashTheParser() {
        var generator = SeededRandom(printingSeedFor: "HIDReportDescriptorTests.randomBytesNeverCrashTheParser")
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...80, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let descriptor = try? HIDReportDescriptor(parsing: bytes), let layout = HIDPOSReportLayout(descriptor: descriptor)
            {
                _ = layout.chunk(of: bytes)
            }
        }
        // Every prefix of a real descriptor, too.
        for end in 0...HIDPOSReports.commonDescriptor.count {
            _ = try? HIDReportDescriptor(parsing: Array(HIDPOSReports.commonDescriptor.prefix(end)))
        }
    }
}
