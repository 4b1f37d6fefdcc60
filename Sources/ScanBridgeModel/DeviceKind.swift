/// What a device reads, and what a reading is: an NFC card, a barcode, a QR code seen by a camera.
public enum DeviceKind: String, Sendable, Codable, CaseIterable, Hashable {
    case nfc
    case barcode
    case qr
}
