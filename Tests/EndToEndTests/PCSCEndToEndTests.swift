import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Synchronization
import Testing

/// NFC readers through the real pcscd and vpcd virtual readers, cards tapped by
/// `VirtualCard`, events read from the real daemon's socket.
@Suite(
    "PC/SC readers end to end",
    .enabled(
        if: TestEnvironment.runs(unless: PCSCStack.unavailableReason),
        "needs pcscd, vsmartcard-vpcd and root (scripts/deps.sh test)"),
    .heavy, .timeLimit(.minutes(5))
)
struct PCSCEndToEndTests {
    static let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
    static let reader = "pcsc:Virtual_PCD_00_00"

    /// A daemon that runs only the PC/SC driver on `stack` (with `config` as its config file), with a subscriber ready.
    static func start(_ stack: PCSCStack, config: String? = nil)
        async throws -> (DaemonHarness, ScanBridgeClient, AsyncStream<ClientNotification>.Iterator)
    {
        var daemon = try DaemonHarness(arguments: ["--drivers", "pcsc"])
        if let config {
            let path = try daemon.write("scanbridge.yaml", config)
            daemon = try DaemonHarness.reusing(daemon, arguments: daemon.arguments + ["--config", path])
        }
        try await daemon.start(environment: stack.environment)
        let client = try await daemon.connect()
        let notifications = client.notifications.makeAsyncIterator()
        _ = try await client.call("events.subscribe")
        return (daemon, client, notifications)
    }

    static func waitForReaders(_ client: ScanBridgeClient, count: Int, state: Device.State = .ready) async throws -> [Device] {
        var have: [Device] = []
        return try await waitFor("\(count) pcsc readers \(state.rawValue); have \(have)", timeout: .seconds(20)) {
            have = try await client.devices()
            let devices = have.filter { $0.driver == "pcsc" }
            return devices.count == count && devices.allSatisfy({ $0.state == state }) ? devices : nil
        }
    }

    /// The next scan event; fails after 30 s instead of waiting forever for a tap that was missed.
    static func nextScan(_ notifications: inout AsyncStream<ClientNotification>.Iterator) async throws -> ScanEvent {
        try #require(try await next("scan", from: &notifications, timeout: .seconds(30)).scanEvent())
    }

    /// The next `device.changed` notification that puts a device in `state` (earlier ones are skipped).
    static func nextChange(to state: Device.State, from notifications: inout AsyncStream<ClientNotification>.Iterator)
        async throws -> Device
    {
        let change = try await next("device.changed", from: &notifications, where: "the device is \(state.rawValue)") {
            (try? $0.device())?.state == state
        }
        return try #require(try change.device())
    }

    @Test func eachTapIsOneEventWithUIDCardTypeAndNDEF() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(stack)
        var notifications = iterator
        let readers = try await Self.waitForReaders(client, count: 2)
        #expect(readers.map(\.id) == [Self.reader, "pcsc:Virtual_PCD_00_01"])
        #expect(readers.first?.name == "Virtual PCD 00 00" && readers.first?.kind == .nfc)

        let ndef = VirtualCard.ndefRecord(type: "U", payload: [0x04] + Array("example.com/c/1".utf8))
        var card = VirtualCard.type2(uid: Self.uid, sizeByte: 0x12, ndef: ndef)
        let tap = try VirtualCardTap(card, port: stack.readerPorts[0])
        let event = try await Self.nextScan(&notifications)
        #expect(event.device == Self.reader && event.driver == "pcsc" && event.kind == .nfc)
        #expect(event.uid == "04A1B2C3D4E5F6" && event.uidDisplay == "04:A1:B2:C3:D4:E5:F6")
        #expect(event.symbology == "iso14443a" && event.cardType == "ntag213")
        #expect(event.atr == hexString(VirtualCard.storageCardATR(name: 0x0003)))
        #expect(event.ndef == [NDEFRecord(type: "U", value: "https://example.com/c/1")])
        #expect(event.resolution.handler == "card-link" && event.resolution.status == "unknown")
        tap.remove()

        // The same card again is a new tap; a text record and a bigger tag this time.
        card = VirtualCard.type2(uid: Self.uid, sizeByte: 0x6D, ndef: VirtualCard.ndefText("Hallo", language: "de"))
        let again = try VirtualCardTap(card, port: stack.readerPorts[0])
        let second = try await Self.nextScan(&notifications)
        #expect(second.seq == event.seq + 1 && second.cardType == "ntag216")
        #expect(second.ndef == [NDEFRecord(type: "T", value: "Hallo")])
        // A MIFARE Classic 1K on the other reader: no NDEF read, its own type.
        let classic = VirtualCard(uid: [0x1C, 0x78, 0xF2, 0xBF], atr: VirtualCard.storageCardATR(name: 0x0001))
        let other = try VirtualCardTap(classic, port: stack.readerPorts[1])
        let third = try await Self.nextScan(&notifications)
        #expect(third.device == "pcsc:Virtual_PCD_00_01" && third.uid == "1C78F2BF" && third.cardType == "mifare-classic-1k")
        #expect(third.ndef == nil)
        other.remove()
        again.remove()
        // Cards that stayed on the reader were not reported twice: the next event is the next tap.
        let desfire = VirtualCard(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], atr: [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
        let last = try VirtualCardTap(desfire, port: stack.readerPorts[0])
        let fourth = try await Self.nextScan(&notifications)
        #expect(fourth.seq == third.seq + 1 && fourth.cardType == "desfire" && fourth.uid == "04112233445566")
        last.remove()
        await client.close()
        _ = daemon
    }

    /// A card taken away and put back while the driver is busy elsewhere (here: a card on the
    /// other reader that is slow to give its UID) is still a new tap: between two wake-ups
    /// only pcsc-lite's event counter in the upper 16 bits of `dwEventState` tells it.
    @Test func aCardRemovedAndPutBackWhileTheDriverIsBusyIsANewTap() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(stack)
        var notifications = iterator
        _ = try await Self.waitForReaders(client, count: 2)
        let card = VirtualCard.type2(uid: Self.uid)
        let first = try VirtualCardTap(card, port: stack.readerPorts[0])
        #expect(try await Self.nextScan(&notifications).device == Self.reader)

        // The driver's thread blocks in GET DATA on the other reader until the gate opens.
        let gate = Gate()
        defer { gate.open() }  // never leave pcscd's reader blocked in that card's answer
        let slow = VirtualCard(uid: [0x1C, 0x78, 0xF2, 0xBF], atr: VirtualCard.storageCardATR(name: 0x0001)) { apdu in
            if apdu.starts(with: [0xFF, 0xCA]) { gate.waitUntilOpen() }
            return nil
        }
        let busy = try VirtualCardTap(slow, port: stack.readerPorts[1])
        try await waitUntil("the slow card's first APDU", timeout: .seconds(20)) { busy.received.withLock { !$0.isEmpty } }
        first.remove()
        let again = try VirtualCardTap(card, port: stack.readerPorts[0])
        // pcscd powered the card up: it saw the reader empty, then this card, while the driver was busy.
        try await waitUntil("pcscd to power the card put back up", timeout: .seconds(20)) {
            again.controlCodes.withLock { $0.contains(1) }
        }
        gate.open()

        let events = [try await Self.nextScan(&notifications), try await Self.nextScan(&notifications)]
        #expect(Set(events.map(\.device)) == [Self.reader, "pcsc:Virtual_PCD_00_01"])
        #expect(events.first { $0.device == Self.reader }?.uid == "04A1B2C3D4E5F6", "the card put back is a new tap")
        again.remove()
        busy.remove()
        await client.close()
        _ = daemon
    }

    /// A card that does not answer on one reader holds up that reader only: a tap on the other
    /// is read and published while the first card still keeps its reader waiting.
    @Test func aSlowCardOnOneReaderDoesNotDelayTapsOnTheOther() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(stack)
        var notifications = iterator
        _ = try await Self.waitForReaders(client, count: 2)
        let gate = Gate()
        defer { gate.open() }  // never leave pcscd's reader blocked in that card's answer
        let slow = VirtualCard(uid: [0x1C, 0x78, 0xF2, 0xBF], atr: VirtualCard.storageCardATR(name: 0x0001)) { apdu in
            if apdu.starts(with: [0xFF, 0xCA]) { gate.waitUntilOpen() }
            return nil
        }
        let stuck = try VirtualCardTap(slow, port: stack.readerPorts[1])
        try await waitUntil("the slow card's first APDU", timeout: .seconds(20)) { stuck.received.withLock { !$0.isEmpty } }

        let quick = try VirtualCardTap(VirtualCard.type2(uid: Self.uid), port: stack.readerPorts[0])
        let first = try await Self.nextScan(&notifications)
        #expect(first.device == Self.reader && first.uid == "04A1B2C3D4E5F6", "read while the other card hangs")
        gate.open()
        let second = try await Self.nextScan(&notifications)
        #expect(second.device == "pcsc:Virtual_PCD_00_01" && second.uid == "1C78F2BF", "the slow card is read once it answers")
        quick.remove()
        stuck.remove()
        await client.close()
        _ = daemon
    }

    /// One reader in `state`; fails after 20 s.
    static func waitForReader(_ id: String, _ client: ScanBridgeClient, state: Device.State) async throws -> Device {
        var have: [Device] = []
        return try await waitFor("\(id) \(state.rawValue); have \(have)", timeout: .seconds(20)) {
            have = try await client.devices()
            return have.first { $0.id == id && $0.state == state }
        }
    }

    /// A reader another PC/SC client holds with SCARD_SHARE_EXCLUSIVE is `busy`, `ready` once
    /// that client lets go, and the next tap on it is read.
    @Test func aReaderHeldExclusivelyIsBusyThenReadyAndReadsTheNextTap() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(stack)
        var notifications = iterator
        _ = try await Self.waitForReaders(client, count: 2)
        let tap = try VirtualCardTap(VirtualCard.type2(uid: Self.uid), port: stack.readerPorts[0])
        _ = try await Self.nextScan(&notifications)

        let hold = try await stack.holdExclusively(stack.readerNames[0])
        let busy = try await Self.waitForReader(Self.reader, client, state: .busy)
        #expect(busy.error?.contains("exclusively") == true)
        hold.release()
        _ = try await Self.waitForReader(Self.reader, client, state: .ready)

        tap.remove()
        let next = try VirtualCardTap(VirtualCard.type2(uid: [0x04, 1, 2, 3, 4, 5, 6]), port: stack.readerPorts[0])
        let event = try await Self.nextScan(&notifications)
        #expect(event.device == Self.reader && event.uid == "04010203040506")
        next.remove()
        await client.close()
        _ = daemon
    }

    @Test func anArmedTapLinksTheCardAndLaterTapsIdentifyOrBlockIt() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(stack)
        var notifications = iterator
        _ = try await Self.waitForReaders(client, count: 2)
        let card = VirtualCard.type2(uid: Self.uid)

        func tapOnce() async throws -> ScanEvent {
            let tap = try VirtualCardTap(card, port: stack.readerPorts[0])
            let event = try await Self.nextScan(&notifications)
            tap.remove()
            return event
        }
        #expect(try await tapOnce().resolution.status == "unknown")
        _ = try await client.call(
            "cards.arm", ["walletAddress": "rCounterWallet", "cardName": "Blue", "device": .string(Self.reader)])
        let linked = try await tapOnce()
        #expect(linked.resolution.status == "linked" && linked.resolution.details["card"]?["uid"] == "04A1B2C3D4E5F6")
        let identified = try await tapOnce()
        #expect(identified.resolution.status == "identified")
        #expect(identified.resolution.details["customer"]?["walletAddress"] == "rCounterWallet")
        _ = try await client.call("cards.setStatus", ["uid": "04A1B2C3D4E5F6", "status": "blocked"])
        #expect(try await tapOnce().resolution.status == "blocked")
        await client.close()
        _ = daemon
    }

    @Test func pcscdKilledAndRestartedBringsTheSameReadersBack() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(stack)
        var notifications = iterator
        let before = try await Self.waitForReaders(client, count: 2)

        try await stack.stop(signal: SIGKILL)
        let gone = try await Self.waitForReaders(client, count: 2, state: .gone)
        #expect(gone.map(\.id) == before.map(\.id))
        try await stack.start()
        let back = try await Self.waitForReaders(client, count: 2)
        #expect(back.map(\.id) == before.map(\.id))

        let tap = try VirtualCardTap(VirtualCard.type2(uid: Self.uid), port: stack.readerPorts[1])
        let event = try await Self.nextScan(&notifications)
        #expect(event.device == "pcsc:Virtual_PCD_00_01" && event.uid == "04A1B2C3D4E5F6")
        tap.remove()
        #expect(daemon.pid != nil, "the daemon kept running")
        await client.close()
    }

    @Test func badCardsGiveADeviceErrorAndNeverStopLaterTaps() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(stack)
        var notifications = iterator
        _ = try await Self.waitForReaders(client, count: 2)

        // GET DATA refused: the reader says why, and is ready again once the card leaves.
        let refusing = VirtualCard(uid: Self.uid, atr: VirtualCard.storageCardATR(name: 0x0001)) { apdu in
            apdu.starts(with: [0xFF, 0xCA]) ? [0x6A, 0x81] : nil
        }
        var tap = try VirtualCardTap(refusing, port: stack.readerPorts[0])
        let failing = try await Self.nextChange(to: .error, from: &notifications)
        #expect(failing.id == Self.reader && failing.error?.contains("6A81") == true)
        tap.remove()
        _ = try await Self.waitForReaders(client, count: 2)

        // Garbage: a UID of 3 bytes; a 33-byte ATR of nonsense; a card pulled after GET DATA.
        let garbage = VirtualCard(uid: [1, 2, 3], atr: [UInt8](repeating: 0x3B, count: 33))
        tap = try VirtualCardTap(garbage, port: stack.readerPorts[0])
        #expect(try await Self.nextChange(to: .error, from: &notifications).error?.contains("3 bytes") == true)
        tap.remove()
        _ = try await Self.waitForReaders(client, count: 2)
        var pulled = VirtualCard.type2(uid: Self.uid, ndef: VirtualCard.ndefText("never read"))
        pulled.leavesAfterAPDUs = 1
        tap = try VirtualCardTap(pulled, port: stack.readerPorts[0])
        let partial = try await Self.nextScan(&notifications)
        #expect(partial.uid == "04A1B2C3D4E5F6" && partial.ndef == nil, "what could be read")

        let good = try VirtualCardTap(VirtualCard.type2(uid: [0x04, 1, 2, 3, 4, 5, 6]), port: stack.readerPorts[1])
        #expect(try await Self.nextScan(&notifications).uid == "04010203040506")
        good.remove()
        await client.close()
        _ = daemon
    }

    /// A killed test run leaves its pcscd and folder behind; the next stack ends them. The
    /// leftover here: a folder whose owner has exited and whose "pcscd" (a process naming the
    /// folder on its command line, as pcscd does) still runs.
    @Test func aStackEndsTheLeftoversOfADeadRun() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scanbridge-pcscd-leftover-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let owner = try Process.run(URL(fileURLWithPath: "/bin/true"), arguments: [])
        try await waitUntil("/bin/true to exit") { owner.hasEnded }
        try "\(owner.processIdentifier) 0".write(to: folder.appendingPathComponent("owner"), atomically: false, encoding: .utf8)
        let daemon = try Process.run(URL(fileURLWithPath: "/usr/bin/perl"), arguments: ["-e", "sleep 30", folder.path])
        try "\(daemon.processIdentifier)\n".write(
            to: folder.appendingPathComponent("pcscd.pid"), atomically: false, encoding: .utf8)

        let stack = try await PCSCStack()
        // Gone or a zombie: its command line is empty then.
        let commandLine = {
            (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(daemon.processIdentifier)/cmdline")).readToEnd())
                ?? nil
        }
        try await waitUntil("the leftover pcscd to be killed", timeout: .seconds(20)) { commandLine()?.isEmpty ?? true }
        #expect(!FileManager.default.fileExists(atPath: folder.path), "its folder was removed")
        #expect(FileManager.default.fileExists(atPath: stack.directory.path), "a live stack is kept")
    }

    /// pcscd's most readers (16), with odd names: each listed under a stable id of its own,
    /// and each read: pcsc-lite takes 16 states a call, so with 16 readers the driver leaves
    /// out the PnP notification (no reader can come then) rather than a reader (PCSC README, "Limits").
    @Test func sixteenReadersWithOddNamesAreListedAndRead() async throws {
        let names = [
            "Reader «Kasse» #1", "ACS ACR122U PICC Interface", "a/b\\c:d", "Virtual PCD", "Ünïcødé Leser",
            "x", "semi;colon (SN123)", String(repeating: "Long", count: 25),
        ]
        let stack = try await PCSCStack(entries: 8, names: names)
        let (daemon, client, iterator) = try await Self.start(stack)
        var notifications = iterator
        let readers = try await Self.waitForReaders(client, count: 16)
        #expect(Set(readers.map(\.id)).count == 16 && Set(readers.map(\.name)) == Set(stack.readerNames))
        #expect(readers.first { $0.name.hasPrefix("ACS") }?.vendorId == "072f")
        #expect(readers.first { $0.name.hasPrefix("semi") }?.serial == "SN123")

        for index in [0, 15] {
            let tap = try VirtualCardTap(
                VirtualCard.type2(uid: [0x04, 0, 0, 0, 0, 0, UInt8(index)]), port: stack.readerPorts[index])
            let event = try await Self.nextScan(&notifications)
            #expect(event.device == readers.first { $0.name == stack.readerNames[index] }?.id)
            #expect(event.uid == String(format: "040000000000%02X", index))
            tap.remove()
        }
        await client.close()
        _ = daemon
    }
}

/// Holds a virtual card's answer (on its own serving thread) until the test opens it.
private final class Gate: Sendable {
    private let isOpen = Mutex(false)

    func open() { isOpen.withLock { $0 = true } }

    /// Blocks the card's serving thread until the test opens the gate, or a minute passes
    /// (a test that fails before opening it does not leave the thread blocked for ever).
    func waitUntilOpen() {
        try? blockUntil("the test to open the gate", timeout: .seconds(60)) { isOpen.withLock { $0 } }
    }
}

private func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02X", $0) }.joined()
}
