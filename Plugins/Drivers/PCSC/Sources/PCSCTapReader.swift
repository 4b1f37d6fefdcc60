import PCSCKit
import ScanBridgeCodes

/// Reads what a tapped card tells: UID (GET DATA), card type (ATR, then the Type 2
/// capability container) and NDEF records of Type 2 and Type 4 tags.
enum PCSCTapReader {
    /// What one tap gave. `uid` is nil when the card would not give it; `problem` says why.
    struct Tap {
        var uid: [UInt8]?
        var atr: CardATR
        var cardType: String
        var symbology: String?
        var ndef: [NDEFMessage.Record]?
        var problem: String?
    }

    static let getUID: [UInt8] = [0xFF, 0xCA, 0x00, 0x00, 0x00]
    /// Type 2 data areas hold at most 888 bytes (NTAG216): never read further, whatever a card
    /// claims. A Type 4 tag's message is held to the same bound, so both kinds cost a tap alike.
    static let maxDataArea = 888
    /// How long a tag may take to give its NDEF message once it gave its UID. Past it the tap
    /// goes on with the UID alone: a tag that answers every command slowly holds up its own
    /// reader for this long at most, plus the one command under way.
    static let ndefBudget: Duration = .seconds(2)

    static func read(_ card: borrowing PCSCCard, atr: [UInt8]) -> Tap {
        let parsed = CardATR(bytes: atr)
        var tap = Tap(atr: parsed, cardType: parsed.cardType, symbology: parsed.symbology)
        do {
            let response = try card.transmit(getUID)
            guard response.ok, NFCUID.validLengths.contains(response.data.count) else {
                tap.problem =
                    response.ok
                    ? "the card gave a UID of \(response.data.count) bytes to GET DATA"
                    : "the card or reader refused GET DATA (status \(response.statusHex))"
                return tap
            }
            tap.uid = response.data
        } catch {
            tap.problem = "the card went away before it gave its UID (\(error))"
            return tap
        }
        let deadline = ContinuousClock.now + ndefBudget
        if isType2(parsed) {
            readType2(card, into: &tap, until: deadline)
        } else if parsed.isISO14443Part4 {
            readType4(card, into: &tap, until: deadline)
        }
        return tap
    }

    /// Ultralight-family ATRs are Type 2 tags (NTAG21x among them); other cards are not read further.
    static func isType2(_ atr: CardATR) -> Bool {
        atr.cardType.hasPrefix("mifare-ultralight")
    }

    /// Reads the capability container (page 3) and the NDEF TLV in the data area from page 4.
    /// A card pulled mid-read, or one that answers nonsense, leaves the tap as far as it got.
    static func readType2(_ card: borrowing PCSCCard, into tap: inout Tap, until deadline: ContinuousClock.Instant) {
        guard let first = try? readPages(card, from: 3), first.count >= 4,
            let container = Type2Tag.CapabilityContainer(page3: Array(first.prefix(4)))
        else { return }
        if let type = container.cardType { tap.cardType = type }
        var data = Array(first.dropFirst(4))
        let limit = min(container.dataAreaSize, maxDataArea)
        guard let needed = Type2Tag.bytesNeeded(forDataAreaStart: data), needed <= limit else { return }
        while data.count < needed {
            guard ContinuousClock.now < deadline else {
                tap.problem = tooSlow
                return
            }
            let page = Type2Tag.firstDataPage + data.count / Type2Tag.pageSize
            guard let more = try? readPages(card, from: page), !more.isEmpty else { return }
            data += more
        }
        if let message = Type2Tag.ndefMessage(inDataArea: data) {
            tap.ndef = NDEFMessage.records(in: message)
        }
    }

    static let tooSlow = "the tag took longer than \(ndefBudget) to give its NDEF message; read its UID only"

    /// READ BINARY of four pages (16 bytes) from `page`; nil data unless the status is 90 00.
    static func readPages(_ card: borrowing PCSCCard, from page: Int) throws(PCSCError) -> [UInt8]? {
        let response = try card.transmit([0xFF, 0xB0, UInt8(page >> 8), UInt8(page & 0xFF), 0x10])
        guard response.ok else { return nil }
        return Array(response.data.prefix(16))
    }
}
