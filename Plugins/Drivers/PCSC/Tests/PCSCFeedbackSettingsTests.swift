import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import PCSCDriver

@Suite("PC/SC feedback settings and commands")
struct PCSCFeedbackSettingsTests {
    @Test func offByDefaultThenOnlyForACR122UClassReadersAndNamedOnes() {
        let acr122 = "ACS ACR122U PICC Interface 00 00"
        #expect(!PCSCFeedbackSettings().covers(readerName: acr122))
        let on = PCSCFeedbackSettings(enabled: true, extraReaders: ["Virtual PCD", ""])
        #expect(on.covers(readerName: acr122))
        #expect(on.covers(readerName: "ACS ACR1252 1S CL Reader [ACR1252 1S CL Reader(PICC)] 00 00"))
        #expect(on.covers(readerName: "Virtual PCD 00 01"))
        #expect(!on.covers(readerName: "Identiv uTrust 3700 F CL Reader 00 00"), "an empty fragment matches nothing")
    }

    @Test func commandsAreACR122UsLEDAndBuzzerCommand() {
        for verdict in FeedbackVerdict.allCases {
            let command = PCSCFeedbackSignal.command(for: verdict)
            #expect(command.count == 9 && command.starts(with: [0xFF, 0x00, 0x40]) && command[4] == 0x04)
            #expect(command[7] > 0, "the buzzer sounds only with repetitions")
        }
        #expect(
            PCSCFeedbackSignal.accepted[3] & 0x0F == 0 && PCSCFeedbackSignal.accepted[3] & 0xA0 == 0xA0,
            "green blinks, no LED state changed")
        #expect(
            PCSCFeedbackSignal.refused[3] & 0x0F == 0 && PCSCFeedbackSignal.refused[3] & 0x50 == 0x50,
            "red blinks, no LED state changed")
        #expect(PCSCFeedbackSignal.succeeded([0x90, 0x02]) && !PCSCFeedbackSignal.succeeded([0x63, 0x00]))
        #expect(!PCSCFeedbackSignal.succeeded([0x90]) && !PCSCFeedbackSignal.succeeded([]))
    }
}
