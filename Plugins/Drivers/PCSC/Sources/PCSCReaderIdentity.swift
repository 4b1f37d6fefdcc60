import ScanBridgeCore
import ScanBridgeModel

/// What a reader's PC/SC name says about it: a stable device id, and the USB identity of
/// well-known models. pcscd names readers `<model> [(<serial>)] <index> <slot>`, the same
/// on every replug into the same port order and across restarts.
enum PCSCReaderIdentity {
    /// USB vendor and product ids of common contactless readers, by a name fragment.
    static let knownModels: [(fragment: String, vendorId: String, productId: String)] = [
        ("ACR122U", "072f", "2200"), ("ACR1252", "072f", "223b"), ("ACR1255", "072f", "224f"),
        ("ACR1281", "072f", "2224"), ("SCL3711", "04e6", "5591"), ("uTrust 3700 F", "04e6", "5790"),
    ]

    /// `pcsc:` and the name with every run of characters other than ASCII letters and digits made
    /// `_`, e.g. `pcsc:ACS_ACR122U_PICC_Interface_00_00`. Odd characters in a name never reach the id.
    /// Letters and digits outside ASCII vanish, so two names could differ only in them
    /// (`Leser Ä`, `Leser Ö`): such a name gets a suffix from a hash of the whole name,
    /// the same on every start. ASCII names keep the plain form.
    static func deviceID(readerName: String) -> String {
        var id = ""
        var pendingSeparator = false
        var lostLetters = false
        for scalar in readerName.unicodeScalars.prefix(200) {
            let letterOrDigit = scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            if scalar.isASCII, letterOrDigit {
                if pendingSeparator, !id.isEmpty { id.append("_") }
                pendingSeparator = false
                id.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
                lostLetters = lostLetters || letterOrDigit
            }
        }
        let plain = "pcsc:" + (id.isEmpty ? "reader" : id)
        return lostLetters ? plain + "_" + nameHash(readerName) : plain
    }

    /// The id of a reader among readers whose ids are `taken`: names that still map to the same id
    /// (`a/b` and `a b`) are told apart by the later one's name hash, so neither depends on
    /// how many readers came before.
    static func deviceID(readerName: String, taken: Set<String>) -> String {
        let id = deviceID(readerName: readerName)
        guard taken.contains(id) else { return id }
        let hashed = id + "_" + nameHash(readerName)
        var unique = hashed
        var extra = 2
        while taken.contains(unique) {
            unique = "\(hashed)_\(extra)"
            extra += 1
        }  // the very same name twice
        return unique
    }

    /// Six hex digits of the FNV-1a hash of the name's UTF-8: short, and stable across runs and builds.
    static func nameHash(_ name: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let hex = String(hash & 0xFF_FFFF, radix: 16)
        return String(repeating: "0", count: 6 - hex.count) + hex
    }

    static func device(readerName: String, id: String) -> Device {
        let model = knownModels.first { readerName.contains($0.fragment) }
        return Device(
            id: id, driver: "pcsc", kind: .nfc, name: readerName, vendorId: model?.vendorId, productId: model?.productId,
            serial: serial(in: readerName))
    }

    /// The USB serial pcscd puts in parentheses, e.g. `Gemalto PC Twin Reader (A1B2C3D4) 00 00`.
    static func serial(in readerName: String) -> String? {
        guard let open = readerName.lastIndex(of: "("), let close = readerName[open...].firstIndex(of: ")") else { return nil }
        let serial = readerName[readerName.index(after: open)..<close]
        return serial.isEmpty ? nil : String(serial)
    }
}
