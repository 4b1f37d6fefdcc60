import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

/// Beep and LED after a tap's resolution, through the real daemon, pcscd and vpcd: vpcd
/// passes the reader's `FF 00 40` command on to the virtual card, which records it.
@Suite(
    "PC/SC reader feedback end to end",
    .enabled(
        if: TestEnvironment.runs(unless: PCSCStack.unavailableReason),
        "needs pcscd, vsmartcard-vpcd and root (scripts/deps.sh test)"),
    .heavy, .timeLimit(.minutes(5))
)
struct PCSCFeedbackTests {
    static let ledCommand: [UInt8] = [0xFF, 0x00, 0x40]
    static let green: [UInt8] = [0xFF, 0x00, 0x40, 0xA0, 0x04, 0x03, 0x01, 0x01, 0x01]
    static let red: [UInt8] = [0xFF, 0x00, 0x40, 0x50, 0x04, 0x01, 0x01, 0x03, 0x01]
    /// vpcd's readers are no ACR122U: a test names them to get feedback.
    static let feedbackOn = """
        pcsc:
          feedback: true
          feedback_readers: ["Virtual PCD"]
        """

    /// Waits until `tap`'s card received a LED command; returns the LED commands so far.
    static func ledCommands(on tap: VirtualCardTap) async throws -> [[UInt8]] {
        try await waitFor("a LED command at the card; it received \(tap.received.withLock { $0 })", timeout: .seconds(20)) {
            let commands = tap.received(startingWith: ledCommand)
            return commands.isEmpty ? nil : commands
        }
    }

    @Test func identifiedGetsGreenUnknownAndBlockedGetRed() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await PCSCEndToEndTests.start(stack, config: Self.feedbackOn)
        var notifications = iterator
        _ = try await PCSCEndToEndTests.waitForReaders(client, count: 2)
        let card = VirtualCard.type2(uid: PCSCEndToEndTests.uid)

        /// Taps the card, waits for its event and its LED command, and takes it away.
        func tap() async throws -> (status: String, led: [[UInt8]]) {
            let tap = try VirtualCardTap(card, port: stack.readerPorts[0])
            let event = try await PCSCEndToEndTests.nextScan(&notifications)
            let led = try await Self.ledCommands(on: tap)
            tap.remove()
            return (event.resolution.status, led)
        }
        let unknown = try await tap()
        #expect(unknown.status == "unknown" && unknown.led == [Self.red])
        _ = try await client.call("cards.link", ["uid": "04A1B2C3D4E5F6", "walletAddress": "rCounterWallet"])
        let identified = try await tap()
        #expect(identified.status == "identified" && identified.led == [Self.green])
        _ = try await client.call("cards.setStatus", ["uid": "04A1B2C3D4E5F6", "status": "blocked"])
        let blocked = try await tap()
        #expect(blocked.status == "blocked" && blocked.led == [Self.red])
        await client.close()
        _ = daemon
    }

    /// Feedback is off by default, and on only for the readers it names: a reader left out
    /// gets nothing. Feedback is sent in the order of the reads, so once the second reader's
    /// card has its command, the first reader's would have been sent already.
    @Test func readersLeftOutGetNoFeedback() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await PCSCEndToEndTests.start(
            stack,
            config: """
                pcsc:
                  feedback: true
                  feedback_readers: ["PCD 00 01"]
                """)
        var notifications = iterator
        _ = try await PCSCEndToEndTests.waitForReaders(client, count: 2)
        let left = try VirtualCardTap(VirtualCard.type2(uid: PCSCEndToEndTests.uid), port: stack.readerPorts[0])
        _ = try await PCSCEndToEndTests.nextScan(&notifications)
        let named = try VirtualCardTap(VirtualCard.type2(uid: [0x04, 1, 2, 3, 4, 5, 6]), port: stack.readerPorts[1])
        _ = try await PCSCEndToEndTests.nextScan(&notifications)
        #expect(try await Self.ledCommands(on: named) == [Self.red])
        #expect(left.received(startingWith: Self.ledCommand).isEmpty)
        left.remove()
        named.remove()
        await client.close()
        _ = daemon
    }

    /// Off unless `feedback: true`, even for the readers named: no card gets a LED command, and
    /// no feedback thread tries one (the cards refuse it, which such a thread logs at debug
    /// level, the level this daemon logs at). A read's feedback is queued as soon as it is
    /// journaled, just after its event is published, so by the last tap's event the taps before
    /// it had their commands queued a tap or two earlier, time enough to be sent had feedback
    /// been on: those are the taps checked, each card left on its own reader, where a command
    /// would reach it. The last tap's command, if any, would still be on its way.
    @Test func feedbackIsOffByDefault() async throws {
        let stack = try await PCSCStack(entries: 2, names: ["Virtual PCD", "Virtual PCD B"])
        let (daemon, client, iterator) = try await PCSCEndToEndTests.start(
            stack,
            config: """
                log_level: debug
                pcsc:
                  feedback_readers: ["Virtual PCD"]
                """)
        var notifications = iterator
        _ = try await PCSCEndToEndTests.waitForReaders(client, count: 4)
        var taps: [VirtualCardTap] = []
        for index in 0..<3 {
            let card = VirtualCard(
                uid: [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, UInt8(index)], atr: VirtualCard.storageCardATR(name: 0x0003)
            ) { apdu in
                apdu.starts(with: Self.ledCommand) ? [0x6A, 0x81] : nil
            }
            taps.append(try VirtualCardTap(card, port: stack.readerPorts[index]))
            _ = try await PCSCEndToEndTests.nextScan(&notifications)
        }
        let checked = taps.dropLast().map { $0.received(startingWith: Self.ledCommand) }
        #expect(checked.allSatisfy { $0.isEmpty }, "LED commands at the cards: \(checked)")
        let log = daemon.log
        #expect(log.contains("debug"), "the daemon logs at debug level, where a feedback thread's refusals would show")
        #expect(!log.contains("beep/LED"), "no feedback thread, no feedback log")
        for tap in taps { tap.remove() }
        await client.close()
    }

    /// A card (or reader) that answers the LED command with an error or garbage changes
    /// nothing: the reader stays ready and the next taps are read and signalled as before.
    @Test func aRefusedOrGarbledLEDCommandChangesNothingForTheNextTap() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await PCSCEndToEndTests.start(stack, config: Self.feedbackOn)
        var notifications = iterator
        _ = try await PCSCEndToEndTests.waitForReaders(client, count: 2)
        let answers: [[UInt8]] = [[0x6A, 0x81], [0xDE, 0xAD, 0xBE], [0x01], []]
        for (index, answer) in answers.enumerated() {
            let card = VirtualCard(
                uid: [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, UInt8(index)], atr: VirtualCard.storageCardATR(name: 0x0003)
            ) { apdu in
                apdu.starts(with: Self.ledCommand) ? answer : nil
            }
            let tap = try VirtualCardTap(card, port: stack.readerPorts[0])
            let event = try await PCSCEndToEndTests.nextScan(&notifications)
            #expect(event.uid == "041020304050" + String(format: "%02X", index))
            #expect(try await Self.ledCommands(on: tap) == [Self.red])
            tap.remove()
        }
        let readers = try await PCSCEndToEndTests.waitForReaders(client, count: 2)
        #expect(readers.allSatisfy { $0.state == .ready && $0.error == nil })
        await client.close()
        _ = daemon
    }
}
