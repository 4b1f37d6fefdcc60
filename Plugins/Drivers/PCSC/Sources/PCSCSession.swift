import CPCSCLite
import Glibc
import Logging
import PCSCKit
import ScanBridgeCore
import ScanBridgeModel

/// One context's life: follows readers (PnP notification plus a re-list after every
/// wake-up) and card events until stopped or until pcscd goes away. Each reader's cards are
/// read by a `PCSCCardWorker` of its own, so watching never waits for a card.
final class PCSCSession {
    enum Ending {
        case stopped
        case lost(PCSCError)
    }

    let context: PCSCContext
    let settings: PCSCSettings
    let control: PCSCControl
    let events: AsyncStream<DriverEvent>.Continuation
    let logger: Logger
    private var readers: [PCSCWatchedReader] = []
    /// Readers past pcsc-lite's limit, logged once each.
    private var unwatched: Set<String> = []
    private var plugAndPlayState = DWORD(SCARD_STATE_UNAWARE)
    /// pcsc-lite's PCSCLITE_MAX_READERS_CONTEXTS: the most states one SCardGetStatusChange takes
    /// (more is SCARD_E_INVALID_PARAMETER) and the most readers pcscd serves ("Max number of readers reached").
    static let mostStates = Int(PCSCLITE_MAX_READERS_CONTEXTS)
    private let plugAndPlayName = strdup(PCSCContext.plugAndPlayReader)!

    init(
        context: PCSCContext, settings: PCSCSettings, control: PCSCControl,
        events: AsyncStream<DriverEvent>.Continuation, logger: Logger
    ) {
        self.context = context
        self.settings = settings
        self.control = control
        self.events = events
        self.logger = logger
    }

    /// Ends every reader's worker too.
    deinit {
        free(plugAndPlayName)
        for reader in readers { reader.release() }
    }

    func run(onStarted: () -> Void) -> Ending {
        do throws(PCSCError) {
            try relist()
            onStarted()
            while !control.isStopped {
                // pcsc-lite takes at most 16 states a call, and pcscd serves at most 16 readers: with
                // 16 listed no reader can come, so the PnP pseudo-reader makes room for the 16th.
                // A reader that goes shows in its own state (and in the re-list).
                let plugAndPlay = readers.count < Self.mostStates
                var states =
                    (plugAndPlay ? [readerState(name: plugAndPlayName, current: plugAndPlayState)] : [])
                    + readers.map { readerState(name: $0.cName, current: $0.currentState) }
                let code = context.waitForChange(&states, milliseconds: settings.relistMilliseconds)
                if control.isStopped { return .stopped }
                switch code {
                case Int(SCARD_S_SUCCESS), Int(SCARD_E_TIMEOUT):
                    // Time-outs too: pcsc-lite fills every state, and flags a reader that another
                    // program takes exclusively as changed only when it was in use before, so that
                    // change is seen here at the latest after relistMilliseconds.
                    let first = plugAndPlay ? 1 : 0
                    if plugAndPlay, code == Int(SCARD_S_SUCCESS) {
                        plugAndPlayState = states[0].dwEventState & ~DWORD(SCARD_STATE_CHANGED)
                    }
                    var watched = readers
                    defer { readers = watched }
                    var settling = false
                    for index in watched.indices {
                        settling = update(&watched[index], with: states[index + first]) || settling
                    }
                    // A reader pcscd has not polled yet: ask again shortly rather than spin.
                    if settling, !control.sleep(seconds: 0.1) { return .stopped }
                case Int(SCARD_E_CANCELLED), Int(SCARD_E_UNKNOWN_READER):
                    break  // re-list below: a reader may have gone or come
                default:
                    let error = PCSCError(code)
                    if error.lostContext { throw error }
                    logger.warning("waiting for reader changes failed: \(error)")
                    guard control.sleep(seconds: settings.firstBackoff) else { return .stopped }
                }
                try relist()
            }
            return .stopped
        } catch {
            // Workers stopped first, so no read of theirs follows their reader's `gone`; the
            // rest of each reader goes with the session (deinit).
            for reader in readers {
                reader.worker.stop()
                reader.status.gone()
            }
            return .lost(error)
        }
    }

    private func readerState(name: UnsafeMutablePointer<CChar>, current: DWORD) -> SCARD_READERSTATE {
        var state = SCARD_READERSTATE()
        state.szReader = UnsafePointer(name)
        state.dwCurrentState = current
        return state
    }

    /// Compares pcscd's reader list with the watched readers: new ones appear, missing ones are gone.
    private func relist() throws(PCSCError) {
        let names: [String]
        do {
            names = try context.readerNames()
        } catch {
            if error.lostContext { throw error }
            logger.warning("listing readers failed: \(error)")
            return
        }
        for reader in readers where !names.contains(reader.name) {
            reader.status.gone()
            logger.info("reader gone", metadata: ["device.id": "\(reader.status.id)"])
            reader.release()
        }
        readers.removeAll { !names.contains($0.name) }
        // pcscd serves at most 16 readers, so this is only a guard against a pcscd built otherwise.
        let room = Self.mostStates
        for name in names where !readers.contains(where: { $0.name == name }) {
            guard readers.count < room else {
                if unwatched.insert(name).inserted { logger.warning("more than \(room) readers: \(name) is not watched") }
                continue
            }
            let id = PCSCReaderIdentity.deviceID(readerName: name, taken: Set(readers.map(\.status.id)))
            let status = PCSCReaderStatus(
                PCSCReaderIdentity.device(readerName: name, id: id), events: events, logger: logger)
            let reader = PCSCWatchedReader(
                name: name, status: status, worker: PCSCCardWorker(readerName: name, status: status, logger: logger))
            readers.append(reader)
            events.yield(.device(status.current))
            logger.info("reader found", metadata: ["device.id": "\(id)", "device.name": "\(name)"])
        }
    }

    /// Applies one reader's new state: busy or ready, and a tap when a card arrived (a
    /// changed event counter in the upper 16 bits means a new card even if one was there before).
    /// Returns true when the reader's state is not known yet (pcscd still setting it up).
    @discardableResult
    private func update(_ reader: inout PCSCWatchedReader, with state: SCARD_READERSTATE) -> Bool {
        let event = state.dwEventState
        let exclusiveMoved = (event ^ reader.currentState) & DWORD(SCARD_STATE_EXCLUSIVE) != 0
        guard event & DWORD(SCARD_STATE_CHANGED) != 0 || exclusiveMoved else { return false }
        let previous = reader.currentState
        reader.currentState = event & ~DWORD(SCARD_STATE_CHANGED)
        if event & DWORD(SCARD_STATE_UNKNOWN | SCARD_STATE_UNAVAILABLE) != 0 {
            // pcsc-lite reports UNAVAILABLE without the event counter, and compares a later
            // PRESENT only with EMPTY: fed back, this state would hide the next card for good.
            // Unaware, the next call says what the reader really holds. A reader that went
            // away is removed by the re-list.
            reader.currentState = DWORD(SCARD_STATE_UNAWARE)
            return true
        }
        let exclusive = event & DWORD(SCARD_STATE_EXCLUSIVE) != 0
        if exclusive {
            reader.status.set(.busy, error: "another program holds this reader exclusively")
            return false
        }
        if reader.status.state == .busy { reader.status.set(.ready) }
        let present = event & DWORD(SCARD_STATE_PRESENT) != 0
        guard present else {
            if reader.status.state == .error { reader.status.set(.ready) }  // the troublesome card left
            return false
        }
        let arrived = previous & DWORD(SCARD_STATE_PRESENT) == 0 || previous >> 16 != event >> 16
        guard arrived else { return false }
        if event & DWORD(SCARD_STATE_MUTE) != 0 {
            reader.status.set(.error, error: "the card on this reader does not answer (mute); take it away and tap again")
            return false
        }
        let atr = withUnsafeBytes(of: state.rgbAtr) { Array($0.prefix(min(Int(state.cbAtr), Int(MAX_ATR_SIZE)))) }
        reader.worker.read(atr: atr)
        return false
    }
}

/// A reader the session watches: its name as pcscd gives it (and as a C string for the
/// state array), its device as last reported, the worker that reads its cards, and the
/// state pcscd last told.
struct PCSCWatchedReader {
    let name: String
    let cName: UnsafeMutablePointer<CChar>
    let status: PCSCReaderStatus
    let worker: PCSCCardWorker
    var currentState = DWORD(SCARD_STATE_UNAWARE)

    init(name: String, status: PCSCReaderStatus, worker: PCSCCardWorker) {
        self.name = name
        cName = strdup(name)!
        self.status = status
        self.worker = worker
    }

    /// When the reader goes or the session ends: its worker stops, its name is freed.
    func release() {
        worker.stop()
        free(cName)
    }
}
