import CPCSCLite
import Foundation
import Logging
import PCSCKit
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// Sends the beep and LED commands on a thread of the driver's own, with a context of its
/// own, so the reader thread never waits for a blink (ACR122U answers once it is done) and
/// the next tap is read meanwhile. Requests are sent in the order of the reads.
final class PCSCFeedbackWorker: Sendable {
    private struct Request {
        let deviceID: String
        let command: [UInt8]
    }

    private struct State {
        var queue: [Request] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)
    private let settings: PCSCFeedbackSettings
    private let logger: Logger

    init(settings: PCSCFeedbackSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        let thread = Thread { [self] in run() }
        thread.name = "scanbridge-pcsc-feedback"
        thread.start()
    }

    /// Queues the signal for `verdict` on the reader of `deviceID`; returns at once.
    func signal(_ verdict: FeedbackVerdict, deviceID: String) {
        let queued = state.withLock { state in
            // A reader that stalls must not make the queue grow without end: older signals are stale anyway.
            guard !state.stopped, state.queue.count < 64 else { return false }
            state.queue.append(Request(deviceID: deviceID, command: PCSCFeedbackSignal.command(for: verdict)))
            return true
        }
        if queued { wakeup.signal() }
    }

    /// Ends the thread once it is done with the signal it is sending, if any.
    func stop() {
        state.withLock { $0.stopped = true }
        wakeup.signal()
    }

    private func next() -> Request? {
        while true {
            wakeup.wait()
            let (request, stopped) = state.withLock { state in
                (state.queue.isEmpty ? nil : state.queue.removeFirst(), state.stopped)
            }
            if stopped { return nil }
            if let request { return request }
        }
    }

    private func run() {
        var sender = PCSCFeedbackSender(settings: settings, logger: logger)
        while let request = next() {
            sender.send(request.command, toDevice: request.deviceID)
        }
        sender.close()
    }
}

/// The worker thread's PC/SC side: its context (made when first needed, made again after
/// pcscd went away) and the readers that refused, each logged once.
struct PCSCFeedbackSender {
    let settings: PCSCFeedbackSettings
    let logger: Logger
    private var context: PCSCContext?
    private var refusing: Set<String> = []

    init(settings: PCSCFeedbackSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    mutating func send(_ command: [UInt8], toDevice deviceID: String) {
        do throws(PCSCError) {
            if self.context == nil { self.context = try PCSCContext.establish() }
            guard let context else { return }
            // The session names devices after their readers; the first reader of a name is the one it reads.
            guard
                let reader = try context.readerNames().first(where: { PCSCReaderIdentity.deviceID(readerName: $0) == deviceID }),
                settings.covers(readerName: reader)
            else { return }
            if let refusal = Self.deliver(command, to: reader, context: context), refusing.insert(reader).inserted {
                logger.debug("reader takes no beep/LED command: \(refusal)", metadata: ["device.id": "\(deviceID)"])
            }
        } catch {
            if error.lostContext { close() }
            logger.debug("no beep/LED: \(error)", metadata: ["device.id": "\(deviceID)"])
        }
    }

    /// Sends through the card while it is still there, else through the reader; nil when the
    /// reader did it, else why not.
    private static func deliver(_ command: [UInt8], to reader: String, context: PCSCContext) -> String? {
        do throws(PCSCError) {
            let card = try PCSCCard(context: context, reader: reader)
            let response = try card.transmit(command)
            return PCSCFeedbackSignal.succeeded(status: response.status) ? nil : "status \(response.statusHex)"
        } catch let error where [Int(SCARD_E_NO_SMARTCARD), Int(SCARD_W_REMOVED_CARD)].contains(error.code) {
            // The card left (before or during the command): the reader itself can still blink.
            do throws(PCSCError) {
                let answer = try PCSCReaderLink(context: context, reader: reader).escape(command)
                return PCSCFeedbackSignal.succeeded(answer) ? nil : "escape answered \(answer.count) bytes"
            } catch {
                return "escape failed: \(error)"
            }
        } catch {
            return "\(error)"
        }
    }

    mutating func close() {
        context?.release()
        context = nil
    }
}
