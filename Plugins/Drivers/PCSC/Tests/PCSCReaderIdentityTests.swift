import ScanBridgeModel
import Testing

@testable import PCSCDriver

@Suite("PC/SC reader identity")
struct PCSCReaderIdentityTests {
    @Test(
        "device ids from reader names",
        arguments: [
            ("ACS ACR122U PICC Interface 00 00", "pcsc:ACS_ACR122U_PICC_Interface_00_00"),
            ("Gemalto PC Twin Reader (A1B2C3D4) 00 00", "pcsc:Gemalto_PC_Twin_Reader_A1B2C3D4_00_00"),
            ("  «Odd»/Reader:\u{0}\n;DROP 01 00 ", "pcsc:Odd_Reader_DROP_01_00"),
            ("ÄÖÜ", "pcsc:reader_" + PCSCReaderIdentity.nameHash("ÄÖÜ")),
        ])
    func deviceIDs(name: String, id: String) {
        #expect(PCSCReaderIdentity.deviceID(readerName: name) == id)
    }

    /// Non-ASCII letters vanish from ids: names that differ only in them still get distinct ids,
    /// the same on every start and whatever the order the readers come in.
    @Test func namesThatDifferOnlyInNonASCIILettersGetDistinctStableIDs() {
        let names = ["Leser Ä 00 00", "Leser Ö 00 00", "Ünïcødé Leser 00 00"]
        let ids = names.map { PCSCReaderIdentity.deviceID(readerName: $0) }
        #expect(Set(ids).count == 3)
        #expect(ids[0].hasPrefix("pcsc:Leser_00_00_") && ids[0].count == "pcsc:Leser_00_00_".count + 6)
        #expect(ids == names.map { PCSCReaderIdentity.deviceID(readerName: $0) }, "stable")
        #expect(
            PCSCReaderIdentity.nameHash("") == "1c9dc5" && PCSCReaderIdentity.nameHash("a") == "0c292c",
            "FNV-1a, pinned: ids survive rebuilds")
    }

    /// ASCII names that map to one id: the later reader gets its name hash, the first keeps the plain id.
    @Test func asciiNamesThatMapToOneIDAreToldApartByTheLaterOne() {
        let first = PCSCReaderIdentity.deviceID(readerName: "a/b 00 00", taken: [])
        let second = PCSCReaderIdentity.deviceID(readerName: "a b 00 00", taken: [first])
        #expect(first == "pcsc:a_b_00_00")
        #expect(second == "pcsc:a_b_00_00_" + PCSCReaderIdentity.nameHash("a b 00 00"))
        let same = PCSCReaderIdentity.deviceID(readerName: "a b 00 00", taken: [first, second])
        #expect(same == second + "_2", "the very same name twice still differs")
        #expect(
            PCSCReaderIdentity.deviceID(readerName: "ACS ACR122U PICC Interface 00 00", taken: [first])
                == "pcsc:ACS_ACR122U_PICC_Interface_00_00", "ordinary ids unchanged")
    }

    @Test func knownModelsAndSerials() {
        let acr = PCSCReaderIdentity.device(readerName: "ACS ACR122U PICC Interface 00 00", id: "pcsc:x")
        #expect(acr.vendorId == "072f" && acr.productId == "2200" && acr.serial == nil && acr.kind == .nfc)
        let twin = PCSCReaderIdentity.device(readerName: "Gemalto PC Twin Reader (A1B2C3D4) 00 00", id: "pcsc:y")
        #expect(twin.serial == "A1B2C3D4" && twin.vendorId == nil)
        #expect(PCSCReaderIdentity.serial(in: "Broken ( 00 00") == nil)
    }
}
