import Foundation
import ScanBridgeCore
import ScanBridgeModel
import Testing

@Suite("What a reader sees of an event")
struct ReaderViewTests {
    static let tap = ScanEvent(
        seq: 7, id: "e7", time: EventTime.parse("2026-11-21T09:40:00.123Z")!, device: "mock:nfc-1", driver: "mock",
        kind: .nfc, symbology: "iso14443a", text: "04A1B2C3D4E5F6", uid: "04A1B2C3D4E5F6",
        uidDisplay: "04:A1:B2:C3:D4:E5:F6",
        resolution: Resolution(
            handler: "card-link", status: "identified",
            details: [
                "card": [
                    "uid": "04A1B2C3D4E5F6", "uidDisplay": "04:A1:B2:C3:D4:E5:F6", "walletAddress": "rAda",
                    "displayName": "Card 5:F6",
                ],
                "customer": ["walletAddress": "rAda", "name": "Ada", "email": "ada@example.com", "phone": "+44 1"],
            ]))

    @Test("a UID keeps its last two bytes, in either spelling, whatever its length")
    func maskedUID() {
        #expect(ScanEvent.maskedUID("04:A1:B2:C3:D4:E5:F6") == "••:••:••:••:••:E5:F6")
        #expect(ScanEvent.maskedUID("04A1B2C3D4E5F6") == "••••••••••E5F6")
        #expect(ScanEvent.maskedUID("A1B2C3D4") == "••••C3D4")
        #expect(ScanEvent.maskedUID("01:02:03:04:05:06:07:08:09:0A") == "••:••:••:••:••:••:••:••:09:0A")
        #expect(ScanEvent.maskedUID(ScanEvent.maskedUID("04A1B2C3D4E5F6")) == "••••••••••E5F6")
        #expect(ScanEvent.maskedUID("AB") == "AB")
    }

    @Test("a tap's UID, its text, its card and its customer's contact details are masked")
    func tap() {
        let view = Self.tap.readerView()
        #expect(view.uid == "••••••••••E5F6")
        #expect(view.uidDisplay == "••:••:••:••:••:E5:F6")
        #expect(view.text == "••••••••••E5F6")
        let card = view.resolution.details["card"]
        #expect(card?["uid"] == "••••••••••E5F6")
        #expect(card?["uidDisplay"] == "••:••:••:••:••:E5:F6")
        #expect(card?["walletAddress"] == "rAda" && card?["displayName"] == "Card 5:F6")
        let customer = view.resolution.details["customer"]
        #expect(customer?["email"] == nil && customer?["phone"] == nil)
        #expect(customer?["name"] == "Ada" && customer?["walletAddress"] == "rAda")
        #expect(view.seq == 7 && view.resolution.status == "identified")
    }

    @Test("a sentence of the resolution that names the card names it masked")
    func reason() {
        var tap = Self.tap
        tap.resolution.details["reason"] = "card 04:A1:B2:C3:D4:E5:F6 is linked to another wallet (04A1B2C3D4E5F6)"
        #expect(
            tap.readerView().resolution.details["reason"]
                == "card ••:••:••:••:••:E5:F6 is linked to another wallet (••••••••••E5F6)")
    }

    @Test("text the reader gave beside the UID (an NDEF text, say) is not the UID and stays")
    func otherText() {
        var tap = Self.tap
        tap.text = "hello"
        #expect(tap.readerView().text == "hello")
    }

    @Test("a journaled tap's reader view is its masked JSON, made once for every reader")
    func journaledTap() throws {
        let stored = JournaledEvent(seq: 7, kind: .nfc, device: "mock:nfc-1", json: Self.tap.json())
        let first = stored.readerView
        #expect(first.json == Self.tap.readerView().json())
        #expect(!String(decoding: first.json, as: UTF8.self).contains("D4E5F6"))
        #expect(!String(decoding: first.json, as: UTF8.self).contains("ada@example.com"))
        #expect(first.seq == 7 && first.kind == .nfc && first.device == "mock:nfc-1")
        let copy = stored
        let again = copy.readerView
        let sameBuffer = first.json.withUnsafeBufferPointer { one in
            again.json.withUnsafeBufferPointer { $0.baseAddress == one.baseAddress }
        }
        #expect(sameBuffer, "a copy of the event shares the view made for the first reader")
        #expect(stored.json == Self.tap.json(), "the event itself is unchanged")
    }

    @Test("an event that is not a tap is its own reader view")
    func barcode() {
        let json = Array(#"{"seq":1,"text":"5901234123457"}"#.utf8)
        let stored = JournaledEvent(seq: 1, kind: .barcode, device: "mock:till-1", json: json)
        #expect(stored.readerView.json == json)
    }
}
