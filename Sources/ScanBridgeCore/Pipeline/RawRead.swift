public import Foundation
public import ScanBridgeModel

/// One read as a driver hands it over, before normalisation: whatever the device told.
public struct RawRead: Sendable {
    /// The id of the device that read it.
    public var device: String
    public var driver: String
    /// The kind of the reading (a barcode scanner reading a QR label still reads a `barcode`).
    public var kind: DeviceKind
    /// Decoded text, when the device delivers text.
    public var text: String?
    /// The bytes exactly as received, when they are not (only) text.
    public var bytes: [UInt8]?
    /// The symbology the device reported, if any (protocol names: `ean-13`, `iso14443a`…).
    public var symbology: String?
    /// The AIM identifier the device reported, if any (`]E0`).
    public var aim: String?
    /// NFC: the card UID as read.
    public var uid: [UInt8]?
    /// NFC: the card's ATR.
    public var atr: [UInt8]?
    public var cardType: String?
    public var ndef: [NDEFRecord]?
    public var time: Date

    public init(
        device: String, driver: String, kind: DeviceKind, text: String? = nil, bytes: [UInt8]? = nil,
        symbology: String? = nil, aim: String? = nil, uid: [UInt8]? = nil, atr: [UInt8]? = nil,
        cardType: String? = nil, ndef: [NDEFRecord]? = nil, time: Date = Date()
    ) {
        self.device = device
        self.driver = driver
        self.kind = kind
        self.text = text
        self.bytes = bytes
        self.symbology = symbology
        self.aim = aim
        self.uid = uid
        self.atr = atr
        self.cardType = cardType
        self.ndef = ndef
        self.time = time
    }
}
