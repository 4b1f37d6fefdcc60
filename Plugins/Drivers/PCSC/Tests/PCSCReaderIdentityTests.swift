@testable import PCSCDriver
import Testing

@Suite("PC/SC reader identity")
struct PCSCReaderIdentityTests {
    @Test("device ids from reader names", arguments: [
        ("ACS ACR122U PICC Interface 00 00", "pcsc:ACS_ACR122U_PICC_Interface_00_00"),
        ("Gemalto PC Twin Reader (A1B2C3D4) 00 00", "pcsc:Gemalto_PC_Twin_Reader_A1B2C3D4_00_00"),
        ("  «Odd»/Reader:\u{0}\n;DROP 01 00 ", "pcsc:Odd_Reader_DROP_01_00"),
        ("ÄÖÜ", "pcsc:reader"),
    ])
    func deviceIDs(name: String, id: String) {
        #expect(PCSCReaderIdentity.deviceID(readerName: name) == id)
    }

    @Test func knownModelsAndSerials() {
        let acr = PCSCReaderIdentity.device(readerName: "ACS ACR122U PICC Interface 00 00", id: "pcsc:x")
        #expect(acr.vendorId == "072f" && acr.productId == "2200" && acr.serial == nil && acr.kind == .nfc)
        let twin = PCSCReaderIdentity.device(readerName: "Gemalto PC Twin Reader (A1B2C3D4) 00 00", id: "pcsc:y")
        #expect(twin.serial == "A1B2C3D4" && twin.vendorId == nil)
        #expect(PCSCReaderIdentity.serial(in: "Broken ( 00 00") == nil)
    }
}
