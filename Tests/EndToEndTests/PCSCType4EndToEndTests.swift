import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// Type 4 tags (ISO 14443-4 cards with the NDEF application) through the real pcscd and vpcd:
/// the NDEF message read in pieces the tag's MLe allows, and tags that lie about lengths or
/// answer slowly, which cost their own tap and nothing else.
@Suite(
    "PC/SC Type 4 tags end to end",
    .enabled(
        if: TestEnvironment.runs(unless: PCSCStack.unavailableReason),
        "needs pcscd, vsmartcard-vpcd and root (scripts/deps.sh test)"),
    .heavy, .timeLimit(.minutes(5))
)
struct PCSCType4EndToEndTests {
    static let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
    static let readBinary: [UInt8] = [0x00, 0xB0]

    @Test func aType4TagsMessageIsReadInPiecesNoLongerThanItsMLe() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await PCSCEndToEndTests.start(stack)
        var notifications = iterator
        _ = try await PCSCEndToEndTests.waitForReaders(client, count: 2)

        let url = "example.com/sun?e=" + String(repeating: "EF963FF7828658A5", count: 12)
        let card = VirtualCard.type4(
            uid: Self.uid, ndef: VirtualCard.ndefURI(url), container: VirtualCard.type4Container(mle: 0x003B), fileSize: 512)
        let tap = try VirtualCardTap(card, port: stack.readerPorts[0])
        let event = try await PCSCEndToEndTests.nextScan(&notifications)
        #expect(event.device == PCSCEndToEndTests.reader && event.uid == "04DE5F1EACC040")
        #expect(event.ndef == [NDEFRecord(type: "U", value: "https://" + url)])
        let reads = tap.received(startingWith: Self.readBinary)
        #expect(reads.count == 2 + (VirtualCard.ndefURI(url).count + 0x3A) / 0x3B, "the container, NLEN, then the pieces")
        #expect(reads.allSatisfy { $0.count == 5 && $0[4] <= 0x3B })
        tap.remove()

        // A card without the NDEF application (a DESFire, a bank card): its UID, no NDEF, no error.
        let bare = VirtualCard(uid: [0x04, 1, 2, 3, 4, 5, 6], atr: VirtualCard.iso14443Part4ATR)
        let other = try VirtualCardTap(bare, port: stack.readerPorts[1])
        let plain = try await PCSCEndToEndTests.nextScan(&notifications)
        #expect(plain.uid == "04010203040506" && plain.ndef == nil)
        #expect(other.received(startingWith: Self.readBinary).isEmpty)
        other.remove()
        await client.close()
        _ = daemon
    }

    @Test func aTagLyingAboutLengthsOrAnsweringSlowlyCostsItsTapOnly() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await PCSCEndToEndTests.start(stack)
        var notifications = iterator
        _ = try await PCSCEndToEndTests.waitForReaders(client, count: 2)

        // NLEN 0x7000 in a file the container says has 256 bytes: never a READ BINARY past NLEN.
        var lying = VirtualCard.type4(uid: Self.uid, ndef: VirtualCard.ndefText("lie"))
        lying.type4?.files[0xE104]?.replaceSubrange(0..<2, with: [0x70, 0x00])
        var tap = try VirtualCardTap(lying, port: stack.readerPorts[0])
        let lied = try await PCSCEndToEndTests.nextScan(&notifications)
        #expect(lied.uid == "04DE5F1EACC040" && lied.ndef == nil)
        #expect(tap.received(startingWith: Self.readBinary).count == 2, "the container and NLEN only")
        tap.remove()

        // A tag that answers every piece of a long message in 0.8 s: the read stops at the
        // driver's budget, and the tap goes with its UID.
        let long = VirtualCard.ndefURI(String(repeating: "slow/", count: 60))
        var slow = VirtualCard.type4(
            uid: Self.uid, ndef: long, container: VirtualCard.type4Container(mle: 0x000F, fileSize: 0x0200), fileSize: 512)
        slow.answer = { apdu in
            if apdu.starts(with: [0x00, 0xB0]), apdu[3] >= 2 || apdu[2] > 0 { usleep(800_000) }
            return nil
        }
        tap = try VirtualCardTap(slow, port: stack.readerPorts[0])
        let started = ContinuousClock.now
        let cut = try await PCSCEndToEndTests.nextScan(&notifications)
        #expect(cut.uid == "04DE5F1EACC040" && cut.ndef == nil)
        #expect(ContinuousClock.now - started < .seconds(10), "the budget, not the \(long.count / 15) pieces")
        let reads = tap.received(startingWith: Self.readBinary).count
        #expect(reads > 2 && reads < long.count / 15, "pieces were read until the budget ran out: \(reads) reads")
        tap.remove()

        // The same budget holds a Type 2 tag, whose pages come 16 bytes a read.
        var slowType2 = VirtualCard.type2(uid: Self.uid, sizeByte: 0x6D, ndef: long)
        slowType2.answer = { apdu in
            if apdu.starts(with: [0xFF, 0xB0]), apdu[3] > 3 { usleep(800_000) }
            return nil
        }
        tap = try VirtualCardTap(slowType2, port: stack.readerPorts[0])
        let cutType2 = try await PCSCEndToEndTests.nextScan(&notifications)
        #expect(cutType2.uid == "04DE5F1EACC040" && cutType2.cardType == "ntag216" && cutType2.ndef == nil)
        let pages = tap.received(startingWith: [0xFF, 0xB0]).count
        #expect(pages > 1 && pages < long.count / 16, "pages were read until the budget ran out: \(pages) reads")
        tap.remove()

        // The daemon reads on: the next tag on the same reader is read whole.
        let good = VirtualCard.type4(uid: [0x04, 9, 8, 7, 6, 5, 4], ndef: VirtualCard.ndefText("next"))
        tap = try VirtualCardTap(good, port: stack.readerPorts[0])
        let next = try await PCSCEndToEndTests.nextScan(&notifications)
        #expect(next.uid == "04090807060504" && next.ndef == [NDEFRecord(type: "T", value: "next")])
        tap.remove()
        await client.close()
        _ = daemon
    }
}
