import Foundation
import ScanBridgeCore
import ScanBridgeModel
import Testing

@Suite("JSON encoding")
struct CodableTests {
    static let time = EventTime.parse("2026-11-21T09:40:00.123Z")!

    func json(_ value: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    @Test("EventTime formats RFC 3339 UTC with milliseconds")
    func eventTime() {
        #expect(EventTime.format(Self.time) == "2026-11-21T09:40:00.123Z")
        #expect(EventTime.parse("2026-11-21T09:40:00Z") == EventTime.parse("2026-11-21T09:40:00.000Z"))
        #expect(EventTime.parse("yesterday") == nil)
    }

    @Test("a full ScanEvent survives a round trip")
    func scanEventRoundTrip() throws {
        let event = ScanEvent(
            seq: 42, id: "6f1c", time: Self.time, device: "mock:nfc-1", driver: "mock", kind: .nfc,
            symbology: "iso14443a", aim: "]X0", text: "04A1B2C3D4E5F6", raw: "BKGyw9Tl9g==", uid: "04A1B2C3D4E5F6",
            uidDisplay: "04:A1:B2:C3:D4:E5:F6", atr: "3B8F8001", cardType: "ntag215",
            ndef: [NDEFRecord(type: "U", value: "https://example.com/a/b")],
            gs1: ["01": "09506000134352", "17": "251231"],
            resolution: Resolution(
                handler: "card-link", status: "identified",
                details: ["card": ["uid": "04A1B2C3D4E5F6", "n": 3, "ok": true, "x": nil]]))
        let data = try JSONEncoder().encode(event)
        #expect(try JSONDecoder().decode(ScanEvent.self, from: data) == event)
        let object = try json(event)
        #expect(object["seq"] == 42)
        #expect(object["time"] == "2026-11-21T09:40:00.123Z")
        #expect(object["kind"] == "nfc")
        #expect(object["resolution"]?["handler"] == "card-link")
        #expect(object["resolution"]?["card"]?["n"] == 3)
        #expect(object["gs1"]?["17"] == "251231")
    }

    @Test("a minimal ScanEvent leaves out absent fields and has an unhandled resolution")
    func minimalScanEvent() throws {
        let event = ScanEvent(
            seq: 1, id: "a", time: Self.time, device: "mock:barcode-1", driver: "mock",
            kind: .barcode, symbology: "unknown", text: "hello")
        let object = try json(event)
        let keys = Set(object.objectValue?.keys.map { $0 } ?? [])
        #expect(keys == ["seq", "id", "time", "device", "driver", "kind", "symbology", "text", "resolution"])
        #expect(object["resolution"] == ["handler": nil, "status": "unhandled"])
        #expect(try JSONDecoder().decode(ScanEvent.self, from: JSONEncoder().encode(event)) == event)
    }

    @Test("decoding fills a missing resolution and rejects a bad time")
    func decoding() throws {
        let text =
            #"{"seq":3,"id":"b","time":"2026-11-21T09:40:00.123Z","device":"d","driver":"mock","kind":"qr","symbology":"qr","text":"x"}"#
        let event = try JSONDecoder().decode(ScanEvent.self, from: Data(text.utf8))
        #expect(event.resolution == .unhandled)
        #expect(event.time == Self.time)
        let bad = text.replacingOccurrences(of: "2026-11-21T09:40:00.123Z", with: "21/11/2026")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ScanEvent.self, from: Data(bad.utf8)) }
    }

    @Test("unhandled encodes handler as null")
    func unhandledNull() throws {
        let text = String(decoding: try JSONEncoder().encode(Resolution.unhandled), as: UTF8.self)
        #expect(text.contains(#""handler":null"#))
        #expect(try json(Resolution.unhandled) == ["handler": nil, "status": "unhandled"])
        #expect(try JSONDecoder().decode(Resolution.self, from: Data(text.utf8)) == .unhandled)
    }

    @Test("Resolution round trip keeps every detail")
    func resolutionRoundTrip() throws {
        let cases: [Resolution] = [
            Resolution(
                handler: "product-lookup", status: "found",
                details: ["gtin": "05901234123457", "product": ["price": "3.50", "quantity": 50]]),
            .error(handler: "order-lookup", message: "the database is read-only"),
            Resolution(handler: "plugin", status: "timeout"),
            Resolution(handler: nil, status: "unhandled", details: ["note": [1, .double(2.5), "x", false]]),
        ]
        for resolution in cases {
            #expect(try JSONDecoder().decode(Resolution.self, from: JSONEncoder().encode(resolution)) == resolution)
        }
        #expect(try json(Resolution.error(handler: "h", message: "m")) == ["handler": "h", "status": "error", "message": "m"])
    }

    @Test("details cannot override handler or status")
    func detailsDoNotOverride() throws {
        let resolution = Resolution(handler: "a", status: "found", details: ["handler": "b", "status": "nope"])
        #expect(try json(resolution) == ["handler": "a", "status": "found"])
    }

    @Test(
        "JSONValue round trip",
        arguments: [
            #"null"#, #"true"#, #"-12"#, #"1.5"#, #""text""#, #"[]"#, #"{}"#,
            #"{"a":[1,{"b":null}],"c":"d","e":9007199254740993}"#,
        ])
    func jsonValueRoundTrip(_ text: String) throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(again == value)
    }

    @Test("JSONValue types")
    func jsonValueTypes() throws {
        let value = try JSONDecoder().decode(
            JSONValue.self, from: Data(#"{"i":3,"d":2.5,"b":true,"s":"x","n":null,"a":[1]}"#.utf8))
        #expect(value["i"] == .int(3))
        #expect(value["d"] == .double(2.5))
        #expect(value["b"] == .bool(true))
        #expect(value["s"]?.stringValue == "x")
        #expect(value["n"]?.isNull == true)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["i"]?.intValue == 3)
        #expect(JSONValue.double(4.0).intValue == 4)
        #expect(JSONValue.double(4.5).intValue == nil)
        #expect(value["missing"] == nil)
        #expect(JSONValue.string("x")["key"] == nil)
        #expect(JSONValue.string("x").typeName == "a string")
    }

    @Test("Device always encodes its identity fields")
    func deviceEncoding() throws {
        let scanner = Device(id: "mock:barcode-1", driver: "mock", kind: .barcode, name: "Mock barcode scanner barcode-1")
        let object = try json(scanner)
        #expect(object["serial"] == .null)
        #expect(object["vendorId"] == .null)
        #expect(object["error"] == nil)
        #expect(try JSONDecoder().decode(Device.self, from: JSONEncoder().encode(scanner)) == scanner)
    }
}
