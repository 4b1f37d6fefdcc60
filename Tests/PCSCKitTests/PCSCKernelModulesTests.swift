import Testing

@testable import PCSCKit

@Suite("PC/SC kernel modules")
struct PCSCKernelModulesTests {
    @Test func findsTheNFCModulesInProcModules() {
        let text = """
            pn533_usb 20480 0 - Live 0x0000000000000000
            pn533 45056 1 pn533_usb, Live 0x0000000000000000
            nfc 135168 1 pn533, Live 0x0000000000000000
            nfc_digital 1 0 - Live 0x0000000000000000
            usbhid 65536 0 - Live 0x0000000000000000
            """
        #expect(PCSCKernelModules.loaded(inProcModules: text) == ["pn533_usb", "pn533", "nfc"])
    }

    @Test func namesThatOnlyLookAlikeAreNotThem() {
        let text = "nfc_digital 1 0 - Live 0x0\npn533x 1 0 - Live 0x0\n\n  \nusbhid 1 0 pn533, Live 0x0"
        #expect(PCSCKernelModules.loaded(inProcModules: text).isEmpty)
        #expect(PCSCKernelModules.loaded(inProcModules: "").isEmpty)
        #expect(PCSCKernelModules.loaded(inProcModules: "nfc") == ["nfc"], "a line with the name only")
    }

    @Test func stateFlagsAreNamed() {
        #expect(PCSCProbe.flags(0x0001_0120) == ["present", "in use"], "the event counter in the upper bits is no flag")
        #expect(PCSCProbe.flags(0x0010) == ["empty"])
    }
}
