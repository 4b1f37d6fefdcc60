import Foundation
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore
import Testing

@Suite("SQLite journal: trade item fields")
struct SQLiteJournalTradeItemTests {
    @Test("an event's gtin and embedded value are stored and read back as they were")
    func roundTrip() async throws {
        let file = try TemporaryDatabase()
        let journal = try openJournal(file.path)
        var original = ScanEvent(
            id: "weight-\(UUID().uuidString)", time: Date(timeIntervalSince1970: 1_800_000_000.25), device: "mock:barcode-1",
            driver: "mock", kind: .barcode,
            symbology: "ean-13", aim: "]E0", text: "2812347012503", gtin: "02812340000002",
            embedded: .object(["weightKg": .double(0.455)]))
        let stored = try await journal.append(original)
        original.seq = stored.seq
        #expect(try decode(stored) == original)
        let read = try await journal.events(after: 0, through: stored.seq, filter: .all, limit: 10)
        #expect(read == [stored])
        let parsed = try ScanEvent(wire: JSONValue(parsing: read[0].json))
        #expect(parsed == original)
        #expect(parsed.gtin == "02812340000002")
        #expect(parsed.embedded?["weightKg"] == .double(0.455))
    }

    @Test("a tap's sun is stored and read back as the wire has it: verified and counter, nothing else")
    func sunRoundTrip() async throws {
        let file = try TemporaryDatabase()
        let journal = try openJournal(file.path)
        let uid = try NFCUID(parsing: "04DE5F1EACC040")
        let event = ScanEvent(
            id: "tap-\(UUID().uuidString)", time: Date(timeIntervalSince1970: 1_800_000_000), device: "pcsc:x",
            driver: "pcsc", kind: .nfc, symbology: "iso14443a", text: uid.hex, uid: uid.hex,
            sun: SUNReading(verified: false, counter: 7, uid: uid, failure: .replayed))
        let stored = try await journal.append(event)
        let parsed = try ScanEvent(wire: JSONValue(parsing: stored.json))
        #expect(parsed.sun == SUNReading(verified: false, counter: 7))
    }
}
