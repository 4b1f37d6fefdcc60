/// What a HID POS barcode scanner sends, for tests: the report descriptor of the common
/// 64-byte scanned-data report, and the reports of a label in it.
package enum HIDPOSReports {
    /// Report 2: a length byte, three AIM bytes, 56 data bytes, a vendor byte, a reserved
    /// byte, then "more follows" in bit 0 of the last byte (the Honeywell-style layout).
    package static let commonDescriptor: [UInt8] = [
        0x05, 0x8C, 0x09, 0x02, 0xA1, 0x01,  // Usage Page (Bar Code Scanner), Usage, Collection (Application)
        0x09, 0x12, 0xA1, 0x02,  //   Usage (Scanned Data Report), Collection (Logical)
        0x85, 0x02,  //   Report ID 2
        0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08,  //   Logical 0…255, Report Size 8
        0x06, 0x00, 0xFF, 0x09, 0x01, 0x95, 0x01, 0x81, 0x02,  // vendor usage: the length byte
        0x05, 0x8C, 0x09, 0xFB, 0x09, 0xFC, 0x09, 0xFD, 0x95, 0x03, 0x81, 0x02,  // Symbology Identifier 1–3
        0x09, 0xFE, 0x95, 0x38, 0x82, 0x02, 0x01,  //   Decoded Data, 56 bytes (buffered bytes)
        0x06, 0x00, 0xFF, 0x09, 0x02, 0x95, 0x01, 0x81, 0x02,  // vendor code
        0x95, 0x01, 0x81, 0x03,  //   reserved
        0x05, 0x8C, 0x09, 0xFF, 0x75, 0x01, 0x95, 0x01, 0x81, 0x02,  // Decode Data Continued
        0x75, 0x07, 0x81, 0x03,  //   padding
        0xC0, 0xC0,
    ]

    /// The 64-byte reports of `label` with the AIM identifier `aim`: 56 bytes of it a report,
    /// all but the last flagged "more follows".
    package static func reports(_ label: String, aim: String) -> [UInt8] {
        let bytes = Array(label.utf8)
        let parts = stride(from: 0, to: bytes.count, by: 56).map { Array(bytes[$0..<min($0 + 56, bytes.count)]) }
        return parts.enumerated().flatMap { index, part in
            var report = [UInt8](repeating: 0, count: 64)
            report[0] = 2
            report[1] = UInt8(part.count)
            report.replaceSubrange(2..<5, with: Array(aim.utf8))
            report.replaceSubrange(5..<(5 + part.count), with: part)
            report[63] = index < parts.count - 1 ? 1 : 0
            return report
        }
    }
}
