public import Foundation
import ScanBridgeCodes

/// One normalised read, as journaled and streamed to clients (docs/protocol.md "ScanEvent").
public struct ScanEvent: Sendable, Hashable {
    /// Strictly increasing and gap-free over the daemon's whole life; 0 until journaled.
    public var seq: UInt64
    public var id: String
    public var time: Date
    public var device: String
    public var driver: String
    /// The kind of the reading.
    public var kind: DeviceKind
    public var symbology: String
    public var aim: String?
    public var text: String
    /// Base64 of the raw bytes, when they are not valid UTF-8 or differ from `text`.
    public var raw: String?
    public var uid: String?
    public var uidDisplay: String?
    public var atr: String?
    public var cardType: String?
    public var ndef: [NDEFRecord]?
    public var gs1: [String: String]?
    /// The GTIN-14 of a code that is one (EAN/UPC/ITF-14, GS1 with AI 01), as the daemon read it.
    public var gtin: String?
    /// The price or weight printed in an in-store barcode (docs/protocol.md "ScanEvent").
    public var embedded: JSONValue?
    /// The Secure Unique NFC message of a tap, once checked (docs/protocol.md "Secure cards").
    public var sun: SUNReading?
    public var resolution: Resolution

    public init(
        seq: UInt64 = 0, id: String, time: Date, device: String, driver: String, kind: DeviceKind,
        symbology: String, aim: String? = nil, text: String, raw: String? = nil, uid: String? = nil,
        uidDisplay: String? = nil, atr: String? = nil, cardType: String? = nil, ndef: [NDEFRecord]? = nil,
        gs1: [String: String]? = nil, gtin: String? = nil, embedded: JSONValue? = nil,
        sun: SUNReading? = nil, resolution: Resolution = .unhandled
    ) {
        self.seq = seq
        self.id = id
        self.time = time
        self.device = device
        self.driver = driver
        self.kind = kind
        self.symbology = symbology
        self.aim = aim
        self.text = text
        self.raw = raw
        self.uid = uid
        self.uidDisplay = uidDisplay
        self.atr = atr
        self.cardType = cardType
        self.ndef = ndef
        self.gs1 = gs1
        self.gtin = gtin
        self.embedded = embedded
        self.sun = sun
        self.resolution = resolution
    }
}

extension ScanEvent: Codable {
    /// Decodes through `init(wire:)`, the one definition of how an event is read.
    public init(from decoder: any Decoder) throws {
        do {
            try self.init(wire: JSONValue(from: decoder))
        } catch let error as WireError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes through `json()`, the one definition of the wire form.
    public func encode(to encoder: any Encoder) throws {
        try JSONValue(parsing: json()).encode(to: encoder)
    }
}
