import PCSCKit
import ScanBridgeCodes

extension PCSCTapReader {
    /// The most data bytes one answer may carry here: `PCSCCard.transmit`'s buffer holds 256
    /// and the status word, and a short READ BINARY asks for 255 at most.
    static let readerLimit = Type4Tag.largestShortLe

    /// Reads the NDEF message of an ISO 14443-4 card that holds the NDEF application; the
    /// conversation, and every bound on it, is `Type4Tag.Reader`'s, the exchange is here. A
    /// card without the application (a bank card, a DESFire without NDEF) is no problem; a
    /// tag that breaks its claims, or is pulled or slow, leaves the tap with its UID.
    static func readType4(_ card: borrowing PCSCCard, into tap: inout Tap, until deadline: ContinuousClock.Instant) {
        var reader = Type4Tag.Reader(maxMessageBytes: maxDataArea, readerLimit: readerLimit)
        var step = reader.first
        while true {
            switch step {
            case .send(let command):
                guard ContinuousClock.now < deadline else {
                    tap.problem = tooSlow
                    return
                }
                guard let response = try? card.transmit(command) else { return }  // the card left
                step = reader.receive(data: response.data, status: response.status)
            case .done(let message):
                tap.ndef = NDEFMessage.records(in: message)
                return
            case .failed(.notType4):
                return
            case .failed(let failure):
                tap.problem = failure.description
                return
            }
        }
    }
}
