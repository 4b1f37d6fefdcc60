import Foundation
import Histogram
import NIOCore
import ScanBridgeClient
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization

/// NFC taps through the real PC/SC stack: a private pcscd with a vpcd reader (`PCSCStack`),
/// a release `scanbridged` on it, a subscriber on its socket, and `pcsc_scan` watching the
/// same reader at the same time as the baseline.
enum TapScenarios {
    struct Figures {
        /// Card connects to vpcd → `scan` notification at the subscriber.
        var tapToEvent: Histogram<UInt64>
        /// Card connects to vpcd → pcsc_scan prints `Card inserted`.
        var pcscScan: Histogram<UInt64>
        /// Per tap, tap-to-event minus pcsc_scan's reaction to the same insertion (ns, signed).
        var differences: [Int64]
        /// The same two figures for the taps of a secure card (an NTAG 424 DNA whose SUN
        /// message is verified and its read counter accepted), interleaved with the plain taps.
        var secureTapToEvent: Histogram<UInt64>
        var secureDifferences: [Int64]
        /// Taps whose event identified the card's customer (the warm-up's included), plain and secure.
        var identified = 0
        /// Secure taps whose message verified (the warm-up's included).
        var verified = 0
    }

    /// The secure card's SDM keys, as the daemon's keys file gives them.
    static let metaReadKey = "8A1B2C3D4E5F60718293A4B5C6D7E8F9"
    static let masterKey = "00112233445566778899AABBCCDDEEFF"
    static let secureUID: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]

    /// Taps before the measured ones.
    static let warmup = 5

    /// `taps` taps of an NTAG213 with a URI record (what a loyalty card carries), each a new
    /// card UID linked to the demo's customer on the shop's store, so each tap identifies her
    /// as a counter's taps do, one at a time: on, until both the daemon and pcsc_scan reported it; off,
    /// until pcsc_scan reported the removal; then a random pause.
    ///
    /// pcscd learns of a vpcd card by polling the reader (vpcd has no event thread; pcscd
    /// 1.9.9 polls such readers every 400 ms), so both figures include the wait for that
    /// poll. The random pause spreads the taps over its cycle; the per-tap difference is
    /// what the daemon itself adds.
    ///
    /// Then as many taps of a secure card (`VirtualNTAG424`, linked `secure`), with a warm-up of
    /// their own: a Type 4 read, its message decrypted and MACed, its read counter accepted
    /// with a write, before it identifies the customer. Its message is made before the tap,
    /// off the clock. The two kinds take turns, not alternate taps: interleaved, some plain taps
    /// ran slow that alone did not, a cost of the secure taps' that the plain row would then
    /// charge to plain taps.
    static func tapToEvent(stores: CounterStores, taps: Int) async throws -> Figures {
        let stack = try await PCSCStack()
        let base = try DaemonHarness(arguments: [])
        let keys = try base.write("sdm.keys", "meta_read_key: \(metaReadKey)\nmaster_key: \(masterKey)\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keys)
        let config = try base.write("scanbridge.yaml", "cards:\n  sun:\n    keys_file: \(keys)\n")
        let daemon = try DaemonHarness.reusing(
            base, arguments: ["--drivers", "pcsc", "--log-level", "warning", "--config", config])
        try await stores.copy(stores.shop, to: daemon)
        try await daemon.start(environment: stack.environment)
        try await CatalogScenarios.settle(daemon: daemon)
        try linkCards(
            (0..<(taps + warmup)).map { (uid($0), "uid") } + [(secureUID, "secure")], socketPath: daemon.socketPath)
        let tag = VirtualNTAG424(
            uid: secureUID, metaReadKey: metaReadKey, fileReadKey: .diversified(master: masterKey))
        let scans = Mutex<[UInt64]>([])
        let identified = Mutex(0)
        let verified = Mutex(0)
        let subscriber = try await LineStamper.connect(socketPath: daemon.socketPath) { line, arrived in
            let text = String(buffer: line)
            if text.contains(#""method":"scan""#) { scans.withLock { $0.append(arrived) } }
            if text.contains(#""status":"identified""#) { identified.withLock { $0 += 1 } }
            if text.contains(#""sun":"#) && text.contains(#""verified":true"#) { verified.withLock { $0 += 1 } }
            return nil
        }
        subscriber.send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
        await subscriber.wait(forLines: 1)
        let watcher = try PCSCScanWatcher(environment: stack.environment)
        // Both have seen the readers empty before the first tap: pcsc_scan prints each
        // reader's first state, the daemon lists the reader.
        try await waitUntil("pcsc_scan prints the readers' first state") { watcher.removedCount >= 1 }
        try await waitForReader(daemon: daemon)

        var figures = Figures(
            tapToEvent: Histogram<UInt64>.nanoseconds(),
            pcscScan: Histogram<UInt64>.nanoseconds(),
            differences: [], secureTapToEvent: Histogram<UInt64>.nanoseconds(), secureDifferences: [])
        var generator = SystemRandomNumberGenerator()
        for tapIndex in 0..<(2 * (taps + warmup)) {
            let (index, secure) = (tapIndex % (taps + warmup), tapIndex >= taps + warmup)
            let card =
                secure
                ? try await tag.nextTap().card
                : VirtualCard.type2(uid: uid(index), ndef: VirtualCard.ndefURI("example.com/loyalty"))
            let (scansBefore, insertedBefore, removedBefore) =
                (scans.withLock { $0.count }, watcher.insertedLines.count, watcher.removedCount)
            let started = Nanos.now()
            let tap = try VirtualCardTap(card, port: stack.readerPorts[0], acknowledgesAtOnce: true)
            try await waitUntil("tap \(index): the scan event and pcsc_scan's line") {
                scans.withLock { $0.count } > scansBefore && watcher.insertedLines.count > insertedBefore
            }
            let event = scans.withLock { $0[scansBefore] }
            let inserted = watcher.insertedLines[insertedBefore]
            if index >= warmup && secure {
                _ = figures.secureTapToEvent.record(event - started)
                figures.secureDifferences.append(Int64(bitPattern: event &- inserted))
            } else if index >= warmup {
                _ = figures.tapToEvent.record(event - started)
                _ = figures.pcscScan.record(inserted - started)
                figures.differences.append(Int64(bitPattern: event &- inserted))
            }
            tap.remove()
            try await waitUntil("tap \(index): pcsc_scan sees the card removed") { watcher.removedCount > removedBefore }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0..<400, using: &generator)))
        }
        await watcher.stop()
        await subscriber.close()
        try await daemon.stop()
        try await stack.stop()
        figures.identified = identified.withLock { $0 }
        figures.verified = verified.withLock { $0 }
        return figures
    }

    /// The UID of tap `index`'s card.
    static func uid(_ index: Int) -> [UInt8] {
        [0x04, 0x5A, 0x3C, UInt8(index >> 8), UInt8(index & 0xFF), 0x81, 0x80]
    }

    /// Links these cards, each with its security (`uid`, `secure`), to the demo's customer.
    static func linkCards(_ cards: [(uid: [UInt8], security: String)], socketPath: String) throws {
        let socket = try LineSocket(path: socketPath)
        for (index, card) in cards.enumerated() {
            let uid = card.uid.map { String(format: "%02X", $0) }.joined()
            try socket.write(
                Array(
                    #"{"jsonrpc":"2.0","id":\#(index),"method":"cards.link","params":{"uid":"\#(uid)","walletAddress":"rN7nDemoWalletAda","security":"\#(card.security)"}}"#
                        .utf8)
                    + [0x0A])
            let answer = try socket.readLine()
            guard JSONScan.number(after: #""id":"#, in: answer) == index, !answer.contains(Array(#""error""#.utf8)) else {
                throw BenchmarkFailure(description: "cards.link: \(String(decoding: answer, as: UTF8.self))")
            }
        }
    }

    /// The daemon lists the vpcd reader as ready.
    static func waitForReader(daemon: DaemonHarness) async throws {
        let client = try await daemon.connect()
        do {
            try await waitUntil("scanbridged lists the vpcd reader") {
                (try? await client.devices())?.contains { $0.driver == "pcsc" && $0.state == .ready } ?? false
            }
        } catch {
            await client.close()
            throw error
        }
        await client.close()
    }

    static func waitUntil(_ what: String, timeout: Duration = .seconds(20), _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while await !condition() {
            guard ContinuousClock.now < deadline else { throw BenchmarkFailure(description: "\(what): not within \(timeout)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// `p50 +0.41 ms  p90 +0.80 ms  p99 +1.20 ms, 0 over +5 ms` of signed nanoseconds: how
    /// many taps miss the target tells a rare stall on a busy machine from a steady cost.
    static func formatDifferences(_ differences: [Int64]) -> String {
        guard !differences.isEmpty else { return "no taps" }
        let percentiles = [50.0, 90.0, 99.0].map { percentile in
            let value = Self.percentile(percentile, of: differences)
            return String(format: "p%.0f %@%.2f ms", percentile, value < 0 ? "−" : "+", Double(value.magnitude) / 1e6)
        }
        let over = differences.filter { $0 > 5_000_000 }.count
        return percentiles.joined(separator: "  ") + ", \(over) over +5 ms"
    }

    /// The nearest-rank percentile of signed nanoseconds (0 for none).
    static func percentile(_ percentile: Double, of differences: [Int64]) -> Int64 {
        let sorted = differences.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * percentile / 100).rounded(.up)) - 1))]
    }
}
