extension VirtualCard {
    /// The NFC Forum Type 4 Tag's NDEF application, as the mapping specifies it and written
    /// apart from the driver's reader (a test double that shared its constants would agree
    /// with its mistakes): SELECT by name (`D2 76 00 00 85 01 01`), SELECT of a file by id,
    /// READ BINARY within the selected file.
    package struct Type4Application: Sendable {
        /// The files by id: `E1 03` the capability container, the NDEF file at the id it names.
        package var files: [UInt16: [UInt8]]
        private var applicationSelected = false
        private var selected: UInt16?

        package init(files: [UInt16: [UInt8]]) {
            self.files = files
        }

        /// The answer to an ISO 7816-4 command, with its status word; nil for instructions it does not know.
        mutating func respond(to apdu: [UInt8]) -> [UInt8]? {
            guard apdu.count >= 4 else { return [0x67, 0x00] }
            switch (apdu[1], apdu[2]) {
            case (0xA4, 0x04):
                let name = apdu.count > 5 ? Array(apdu.dropFirst(5).prefix(Int(apdu[4]))) : []
                applicationSelected = name == [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
                selected = nil
                return applicationSelected ? [0x90, 0x00] : [0x6A, 0x82]
            case (0xA4, 0x00):
                guard apdu.count >= 7, apdu[4] == 2 else { return [0x67, 0x00] }
                let id = UInt16(apdu[5]) << 8 | UInt16(apdu[6])
                guard applicationSelected, files[id] != nil else { return [0x6A, 0x82] }
                selected = id
                return [0x90, 0x00]
            case (0xB0, _):
                guard apdu.count >= 5, let selected, let file = files[selected] else { return [0x69, 0x86] }
                let offset = Int(apdu[2] & 0x7F) << 8 | Int(apdu[3])
                let length = apdu[4] == 0 ? 256 : Int(apdu[4])
                guard offset + length <= file.count else { return [0x6B, 0x00] }
                return Array(file[offset..<offset + length]) + [0x90, 0x00]
            default: return nil
            }
        }
    }

    /// The ATR PC/SC readers make of an NTAG 424 DNA's ATS (historical byte `80`), the same
    /// bytes as a DESFire's: `3B 81 80 01 80 80`.
    package static let iso14443Part4ATR: [UInt8] = [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80]

    /// A Type 4 tag's capability container: CCLEN 15, mapping `version`, MLe, MLc, and the
    /// NDEF File Control TLV (file id, its size, read and write access).
    package static func type4Container(
        length: UInt16 = 0x000F, version: UInt8 = 0x20, mle: UInt16 = 0x0100, mlc: UInt16 = 0x00FF, file: UInt16 = 0xE104,
        fileSize: UInt16 = 0x0100, readAccess: UInt8 = 0x00
    ) -> [UInt8] {
        func word(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        return word(length) + [version] + word(mle) + word(mlc) + [0x04, 0x06] + word(file) + word(fileSize)
            + [readAccess, 0x00]
    }

    /// An NTAG 424 DNA-like Type 4 tag: `container` in `E1 03`, `ndef` behind its NLEN in
    /// the NDEF file `E1 04` (padded to `fileSize`).
    package static func type4(
        uid: [UInt8], ndef: [UInt8], container: [UInt8] = type4Container(), atr: [UInt8] = iso14443Part4ATR,
        fileSize: Int = 256
    ) -> VirtualCard {
        var file = [UInt8(ndef.count >> 8 & 0xFF), UInt8(ndef.count & 0xFF)] + ndef
        file += [UInt8](repeating: 0, count: max(0, fileSize - file.count))
        return VirtualCard(uid: uid, atr: atr, type4: Type4Application(files: [0xE103: container, 0xE104: file]))
    }
}
