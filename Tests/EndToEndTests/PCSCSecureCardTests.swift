import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// Cards that cannot be cloned, through the real pcscd and vpcd: virtual NTAG 424 DNA tags
/// whose every tap carries a Secure Unique NFC message made by an implementation of their own
/// (`VirtualNTAG424`), read by the PC/SC driver and verified by the daemon with the keys of
/// its keys file. A clone of the UID, a replayed message and a message under another key are
/// refused and counted; a tag that answers anticollision with a random UID is known by the UID
/// inside its message.
@Suite(
    "PC/SC secure cards end to end",
    .enabled(
        if: TestEnvironment.runs(unless: PCSCStack.unavailableReason),
        "needs pcscd, vsmartcard-vpcd and root (scripts/deps.sh test)"),
    .heavy, .timeLimit(.minutes(5))
)
struct PCSCSecureCardTests {
    static let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
    static let meta = "8A1B2C3D4E5F60718293A4B5C6D7E8F9"
    static let master = "00112233445566778899AABBCCDDEEFF"
    static let fixed = "F0E1D2C3B4A5968778695A4B3C2D1E0F"

    /// A daemon on the PC/SC readers with `keys` as its keys file (mode 600) and public metrics.
    static func start(_ stack: PCSCStack, keys: String, sun: String = "", mode: Int = 0o600) async throws
        -> (DaemonHarness, ScanBridgeClient, AsyncStream<ClientNotification>.Iterator)
    {
        let base = try DaemonHarness(arguments: [])
        let keysPath = try base.write("sdm.keys", keys)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: keysPath)
        let config = try base.write(
            "scanbridge.yaml",
            """
            http:
              metrics_public: true
            cards:
              sun:
                keys_file: sdm.keys
            \(sun)
            """)
        let daemon = try DaemonHarness.reusing(
            base, arguments: ["--drivers", "pcsc", "--http", "127.0.0.1:0", "--config", config])
        try await daemon.start(environment: stack.environment)
        let client = try await daemon.connect()
        let notifications = client.notifications.makeAsyncIterator()
        _ = try await client.call("events.subscribe")
        _ = try await PCSCEndToEndTests.waitForReaders(client, count: 2)
        return (daemon, client, notifications)
    }

    /// Taps `card` on the first reader and returns its event once the card has left.
    static func tap(
        _ card: VirtualCard, _ stack: PCSCStack, _ notifications: inout AsyncStream<ClientNotification>.Iterator
    ) async throws -> ScanEvent {
        let tap = try VirtualCardTap(card, port: stack.readerPorts[0])
        defer { tap.remove() }
        return try await PCSCEndToEndTests.nextScan(&notifications)
    }

    /// `scanbridge_card_unverified_total` by reason, from `GET /metrics`.
    static func unverifiedCounts(_ daemon: DaemonHarness) async throws -> [String: Int] {
        let text = try await daemon.gatewayClient().request("GET", "/metrics").text
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("scanbridge_card_unverified_total{") {
            guard let open = line.range(of: "reason=\""), let close = line[open.upperBound...].firstIndex(of: "\""),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            counts[String(line[open.upperBound..<close])] = Int(value)
        }
        return counts
    }

    @Test func aSecureCardIsIdentifiedByVerifiedTapsAloneAndAClonedUIDOrAReplayIsRefused() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(
            stack, keys: "# the shop's cards\nmeta_read_key: \(Self.meta)\nmaster_key: \(Self.master)\n")
        var notifications = iterator
        let tag = VirtualNTAG424(uid: Self.uid, metaReadKey: Self.meta, fileReadKey: .diversified(master: Self.master))
        let linked = try await client.call(
            "cards.link",
            ["uid": "04DE5F1EACC040", "walletAddress": "rAda", "security": "secure"])
        #expect(linked["card"]?["security"]?.stringValue == "secure")

        let (first, firstURL) = try await tag.nextTap()
        var event = try await Self.tap(first, stack, &notifications)
        #expect(event.resolution.status == "identified", "\(event.resolution)")
        #expect(event.resolution.details["verified"] == .bool(true))
        #expect(event.resolution.details["customer"]?["walletAddress"]?.stringValue == "rAda")
        #expect(event.sun == SUNReading(verified: true, counter: 1))
        // The message is the daemon's to check, no one's to keep: gone from the URL on the wire.
        #expect(event.ndef == [NDEFRecord(type: "U", value: "https://shop.example/tap")])
        #expect(!event.json().contains(Array("picc_data".utf8)))

        event = try await Self.tap(try await tag.nextTap().card, stack, &notifications)
        #expect(event.resolution.status == "identified" && event.sun?.counter == 2)

        // The first message again, as a copy of it would show it.
        event = try await Self.tap(tag.card(url: firstURL), stack, &notifications)
        #expect(event.resolution.status == "unverified" && event.resolution.details["reason"] == .string("replayed"))
        #expect(event.resolution.details["customer"] == nil && event.sun == SUNReading(verified: false, counter: 1))

        // A card made to give the same UID, with no message (a plain Type 2 tag).
        event = try await Self.tap(VirtualCard.type2(uid: Self.uid), stack, &notifications)
        #expect(event.uid == "04DE5F1EACC040" && event.sun == nil)
        #expect(event.resolution.status == "unverified" && event.resolution.details["reason"] == .string("no-message"))
        #expect(event.resolution.details["customer"] == nil && event.resolution.details["verified"] == .bool(false))

        // The tag itself is welcome again, its counter above the last accepted.
        event = try await Self.tap(try await tag.nextTap().card, stack, &notifications)
        #expect(event.resolution.status == "identified" && event.sun?.counter == 3)

        let counts = try await Self.unverifiedCounts(daemon)
        #expect(counts["replayed"] == 1 && counts["no-message"] == 1, "\(counts)")
        await client.close()
        _ = daemon
    }

    @Test func aMessageUnderAnotherKeyIsRefusedAndARandomIDTagIsKnownByItsRealUID() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(
            stack, keys: "meta_read_key: \(Self.meta)\nfile_read_key: \(Self.fixed)\n",
            sun: "    picc_parameter: p\n    cmac_parameter: m")
        var notifications = iterator
        let template = "shop.example/t?p={picc}&m={cmac}&shop=leeds"
        // Anticollision gives a random 4-byte ID (08…), as NTAG 424 DNA's random ID option does.
        let tag = VirtualNTAG424(
            uid: Self.uid, metaReadKey: Self.meta, fileReadKey: .fixed(Self.fixed), template: template,
            anticollisionUID: [0x08, 0x4F, 0x21, 0x9C])
        _ = try await client.call("cards.link", ["uid": "04DE5F1EACC040", "walletAddress": "rBob", "security": "secure"])

        var event = try await Self.tap(try await tag.nextTap().card, stack, &notifications)
        #expect(event.uid == "084F219C")
        #expect(event.resolution.status == "identified", "\(event.resolution)")
        #expect(event.resolution.details["card"]?["uid"]?.stringValue == "04DE5F1EACC040")
        #expect(event.ndef == [NDEFRecord(type: "U", value: "https://shop.example/t?shop=leeds")])

        // The right meta read key, another file read key: the MAC is wrong.
        let forged = VirtualNTAG424(
            uid: Self.uid, metaReadKey: Self.meta, fileReadKey: .fixed(Self.master), template: template, counter: 10)
        event = try await Self.tap(try await forged.nextTap().card, stack, &notifications)
        #expect(event.resolution.status == "unverified" && event.resolution.details["reason"] == .string("bad-cmac"))
        #expect(event.resolution.details["card"]?["uid"]?.stringValue == "04DE5F1EACC040" && event.sun?.counter == nil)

        // Another shop's tag with this UID: its PICC data does not open with this shop's key. Noise
        // passes for PICC data once in 128 messages (PICCData), and its MAC then fails instead.
        let stranger = VirtualNTAG424(
            uid: Self.uid, metaReadKey: Self.master, fileReadKey: .fixed(Self.fixed), template: template, counter: 20)
        event = try await Self.tap(try await stranger.nextTap().card, stack, &notifications)
        let strangerReason = event.resolution.details["reason"]?.stringValue ?? ""
        #expect(event.resolution.status == "unverified" && ["unknown-key", "bad-cmac"].contains(strangerReason), "\(event)")

        // The forged MAC did not move the counter: the tag's next tap is still accepted.
        event = try await Self.tap(try await tag.nextTap().card, stack, &notifications)
        #expect(event.resolution.status == "identified" && event.sun?.counter == 2)

        let counts = try await Self.unverifiedCounts(daemon)
        #expect(counts["bad-cmac", default: 0] + counts["unknown-key", default: 0] == 2, "\(counts)")
        #expect(counts["bad-cmac", default: 0] >= 1, "\(counts)")
        await client.close()
        _ = daemon
    }

    @Test func anArmedSecureLinkTakesAVerifiedTapOnly() async throws {
        let stack = try await PCSCStack()
        let (daemon, client, iterator) = try await Self.start(
            stack, keys: "meta_read_key: \(Self.meta)\nmaster_key: \(Self.master)\n")
        var notifications = iterator
        let tag = VirtualNTAG424(uid: Self.uid, metaReadKey: Self.meta, fileReadKey: .diversified(master: Self.master))

        _ = try await client.call(
            "cards.arm", ["walletAddress": "rCy", "security": "secure", "device": .string(PCSCEndToEndTests.reader)])
        var event = try await Self.tap(VirtualCard.type2(uid: Self.uid), stack, &notifications)
        #expect(event.resolution.status == "unverified" && event.resolution.details["reason"] == .string("no-message"))

        _ = try await client.call(
            "cards.arm", ["walletAddress": "rCy", "security": "secure", "device": .string(PCSCEndToEndTests.reader)])
        event = try await Self.tap(try await tag.nextTap().card, stack, &notifications)
        #expect(event.resolution.status == "linked", "\(event.resolution)")
        #expect(event.resolution.details["card"]?["security"] == .string("secure"))
        event = try await Self.tap(try await tag.nextTap().card, stack, &notifications)
        #expect(event.resolution.status == "identified")
        await client.close()
        _ = daemon
    }
}

/// The keys file is refused, saying why and naming no key, unless its owner alone may read it.
@Suite struct SDMKeysFileTests {
    static let meta = PCSCSecureCardTests.meta
    static let master = PCSCSecureCardTests.master

    @Test func aKeysFileOthersMayReadStopsTheDaemonSayingWhy() async throws {
        let daemon = try DaemonHarness(arguments: [])
        let keys = try daemon.write("sdm.keys", "meta_read_key: \(Self.meta)\nmaster_key: \(Self.master)\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: keys)
        let config = try daemon.write("scanbridge.yaml", "cards:\n  sun:\n    keys_file: \(keys)\n")
        let refused = try DaemonHarness.reusing(daemon, arguments: ["--drivers", "mock", "--config", config])
        let error = await #expect(throws: (any Error).self) { try await refused.start() }
        let said = "\(error.map { "\($0)" } ?? "")"
        #expect(said.contains("cards.sun.keys_file") && said.contains("mode 640") && said.contains("chmod 600"), "\(said)")
        #expect(!said.contains(Self.meta) && !said.contains(Self.master), "no key in what it says")
    }
}
