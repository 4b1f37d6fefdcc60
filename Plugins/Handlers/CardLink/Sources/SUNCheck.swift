package import Logging
import ScanBridgeCodes
package import ScanBridgeCore
package import ScanBridgeModel
import ScanBridgeSUN

/// Checks the Secure Unique NFC message of a tap's NDEF URL, before any handler sees the
/// tap: decrypts the PICC data, checks the SDMMAC, and accepts the read counter only when it
/// rose since the card's last accepted tap (`CardRepository.acceptReadCounter`, shop-wide with
/// a shared store). The outcome is the event's `sun`; the message's parameters are taken out
/// of the URL, so neither a client nor the journal holds what could be replayed.
package struct SUNCheck: ScanEventCheck {
    let keys: SDMKeys?
    let layout: SUNLayout
    let cards: any CardRepository
    let logger: Logger

    package init(keys: SDMKeys?, layout: SUNLayout, cards: any CardRepository, logger: Logger) {
        self.keys = keys
        self.layout = layout
        self.cards = cards
        self.logger = logger
    }

    package func check(_ event: inout ScanEvent) async {
        guard event.kind == .nfc, let records = event.ndef else { return }
        for (index, record) in records.enumerated() where record.type == "U" {
            guard let message = try? SUNMessage(url: record.value, piccNames: layout.piccNames, macNames: layout.macNames)
            else { continue }
            let shown = SUNMessage.removing(layout.names, from: record.value)
            if event.text == record.value { event.text = shown }
            event.ndef?[index].value = shown
            event.sun = await reading(message)
            return
        }
    }

    private func reading(_ message: SUNMessage) async -> SUNReading {
        guard let verifier = keys?.verifier else { return SUNReading(verified: false, failure: .unknownKey) }
        switch verifier.verify(message) {
        case .failure(.unreadable), .failure(.unknownKey):
            return SUNReading(verified: false, failure: .unknownKey)
        case .failure(.badMAC):
            // The UID it claims, so a secure card's forged tap is told apart from a stranger's.
            let claimed = try? NFCUID(bytes: verifier.claimedPICCData(message).uid)
            return SUNReading(verified: false, uid: claimed, failure: .badCMAC)
        case .success(let verified):
            guard let uid = try? NFCUID(bytes: verified.uid) else {
                return SUNReading(verified: false, failure: .unknownKey)
            }
            // Without a mirrored counter, nothing tells this read from a copy of it.
            guard let counter = verified.readCounter else { return SUNReading(verified: false, uid: uid, failure: .replayed) }
            do {
                let fresh = try await cards.acceptReadCounter(uid: uid, counter: counter)
                return SUNReading(verified: fresh, counter: counter, uid: uid, failure: fresh ? nil : .replayed)
            } catch {
                logger.error(
                    "a card's read counter could not be judged", metadata: ["card.uid": "\(uid.hex)", "error": "\(error)"])
                return SUNReading(verified: false, counter: counter, uid: uid, trouble: "\(error)")
            }
        }
    }
}
