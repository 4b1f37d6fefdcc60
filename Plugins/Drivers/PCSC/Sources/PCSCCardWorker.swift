import CPCSCLite
import Foundation
import Logging
import PCSCKit
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// Reads the cards tapped on one reader, on a thread of that reader's own with a context of its
/// own (libpcsclite wants one `SCARDCONTEXT` a thread), so a slow or hostile card on one reader
/// holds up only its own reader: the session's thread goes on watching the others, and their
/// taps are read meanwhile. The session starts one per reader and stops it when the reader goes.
final class PCSCCardWorker: Sendable {
    private struct State {
        /// The tap to read next: a newer tap replaces one not started yet (that card has left).
        var pending: [UInt8]?
        var stopped = false
    }

    let readerName: String
    private let status: PCSCReaderStatus
    private let logger: Logger
    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)

    init(readerName: String, status: PCSCReaderStatus, logger: Logger) {
        self.readerName = readerName
        self.status = status
        self.logger = logger
        let thread = Thread { [self] in run() }
        thread.name = "scanbridge-pcsc-card"
        thread.start()
    }

    /// Reads the card now on the reader, whose ATR pcscd gave; returns at once.
    func read(atr: [UInt8]) {
        let wake = state.withLock { state in
            guard !state.stopped else { return false }
            state.pending = atr
            return true
        }
        if wake { wakeup.signal() }
    }

    /// Ends the thread once the card it reads, if any, answers or leaves; reports nothing more.
    func stop() {
        state.withLock { $0.stopped = true }
        wakeup.signal()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func next() -> [UInt8]? {
        while true {
            wakeup.wait()
            let (atr, stopped) = state.withLock { state in
                defer { state.pending = nil }
                return (state.pending, state.stopped)
            }
            if stopped { return nil }
            if let atr { return atr }
        }
    }

    private func run() {
        var context: PCSCContext?
        defer { context?.release() }
        while let atr = next() {
            do throws(PCSCError) {
                // Made when first needed, and again after pcscd went away.
                if context == nil { context = try PCSCContext.establish() }
                guard let established = context else { continue }
                let card = try PCSCCard(context: established, reader: readerName)
                let tap = PCSCTapReader.read(card, atr: atr)
                if !isStopped { report(tap, atr: atr) }
            } catch {
                if error.lostContext {
                    // The session's own context sees pcscd go too, and ends the readers.
                    context?.release()
                    context = nil
                    logger.debug("card not read: \(error)", metadata: ["device.id": "\(status.id)"])
                } else if isStopped {
                    continue
                } else if error.code == Int(SCARD_E_SHARING_VIOLATION) {
                    status.set(.busy, error: "another program holds this reader exclusively")
                } else {
                    logger.info("the card left before it could be read: \(error)", metadata: ["device.id": "\(status.id)"])
                }
            }
        }
    }

    private func report(_ tap: PCSCTapReader.Tap, atr: [UInt8]) {
        guard let uid = tap.uid else {
            status.set(.error, error: (tap.problem ?? "the card gave no UID") + "; take it away and tap again")
            return
        }
        if let problem = tap.problem { logger.info("\(problem)", metadata: ["device.id": "\(status.id)"]) }
        status.read(
            RawRead(
                device: status.id, driver: "pcsc", kind: .nfc, symbology: tap.symbology, uid: uid,
                atr: atr.isEmpty ? nil : atr, cardType: tap.cardType,
                ndef: tap.ndef.map { $0.map { NDEFRecord(type: $0.type, value: $0.value) } }))
    }
}
