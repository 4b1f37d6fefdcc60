package import ScanBridgeCore
import ScanBridgeModel

/// Beep and LED after each tap's resolution: off unless the daemon's config turns it on,
/// and then only on readers that understand ACR122U's LED command.
package struct PCSCFeedbackSettings: Sendable, Hashable {
    package var enabled: Bool
    /// More reader-name fragments that get feedback, besides `models` (vpcd's
    /// `Virtual PCD` in tests, a reader that speaks ACR122U's commands under another name).
    package var extraReaders: [String]

    /// Name fragments of readers that take `FF 00 40` (ACR122U and its compatible successors).
    package static let models = ["ACR122", "ACR1252", "ACM1252"]

    package init(enabled: Bool = false, extraReaders: [String] = []) {
        self.enabled = enabled
        self.extraReaders = extraReaders
    }

    /// Whether the reader pcscd names `readerName` gets feedback.
    package func covers(readerName: String) -> Bool {
        enabled && (Self.models + extraReaders).contains { !$0.isEmpty && readerName.contains($0) }
    }
}

/// ACR122U's bi-colour LED and buzzer command, `FF 00 40 <LED state> 04 <T1> <T2> <repetitions> <buzzer>`
/// (T1, T2 in 100 ms; ACR122U API §6.2). The blink masks are set and the state masks are
/// not, so the LEDs go back to what the reader shows when idle.
package enum PCSCFeedbackSignal {
    /// Green on for 300 ms with one beep.
    package static let accepted: [UInt8] = [0xFF, 0x00, 0x40, 0xA0, 0x04, 0x03, 0x01, 0x01, 0x01]
    /// Red on and off three times, 100 ms each, a beep with every flash.
    package static let refused: [UInt8] = [0xFF, 0x00, 0x40, 0x50, 0x04, 0x01, 0x01, 0x03, 0x01]
    /// One 100 ms beep, LEDs untouched (LED state 0 means buzzer only).
    package static let read: [UInt8] = [0xFF, 0x00, 0x40, 0x00, 0x04, 0x01, 0x00, 0x01, 0x01]

    package static func command(for verdict: FeedbackVerdict) -> [UInt8] {
        switch verdict {
        case .accepted: accepted
        case .refused: refused
        case .read: read
        }
    }

    /// ACR122U answers `90 <LED state>` when it did it; anything else is a refusal.
    static func succeeded(_ response: [UInt8]) -> Bool {
        response.count >= 2 && succeeded(status: UInt16(response[response.count - 2]) << 8)
    }

    static func succeeded(status: UInt16) -> Bool {
        status >> 8 == 0x90
    }
}
