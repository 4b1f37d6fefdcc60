import ScanBridgeCore

/// What a reader's PC/SC name says about it: a stable device id, and the USB identity of
/// well-known models. pcscd names readers `<model> [(<serial>)] <index> <slot>`, the same
/// on every replug into the same port order and across restarts.
enum PCSCReaderIdentity {
    /// USB vendor and product ids of common contactless readers, by a name fragment.
    static let knownModels: [(fragment: String, vendorId: String, productId: String)] = [
        ("ACR122U", "072f", "2200"), ("ACR1252", "072f", "223b"), ("ACR1255", "072f", "224f"),
        ("ACR1281", "072f", "2224"), ("SCL3711", "04e6", "5591"), ("uTrust 3700 F", "04e6", "5790"),
    ]

    /// `pcsc:` and the name with every run of characters other than letters and digits made `_`,
    /// e.g. `pcsc:ACS_ACR122U_PICC_Interface_00_00`. Odd characters in a name never reach the id.
    static func deviceID(readerName: String) -> String {
        var id = ""
        var pendingSeparator = false
        for scalar in readerName.unicodeScalars.prefix(200) {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                if pendingSeparator, !id.isEmpty { id.append("_") }
                pendingSeparator = false
                id.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        return "pcsc:" + (id.isEmpty ? "reader" : id)
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
