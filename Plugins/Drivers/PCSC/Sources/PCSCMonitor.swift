import CPCSCLite
import Logging
import PCSCKit
import ScanBridgeCore
import ScanBridgeModel

/// The driver thread's loop: a context per pcscd lifetime, re-established with backoff
/// (0.5 s doubling to 10 s by default) whenever pcscd stops or restarts, never a daemon restart.
struct PCSCMonitor: Sendable {
    let settings: PCSCSettings
    let control: PCSCControl
    let events: AsyncStream<DriverEvent>.Continuation
    let logger: Logger

    func run() {
        var delay = settings.firstBackoff
        var outage: PCSCError?
        while !control.isStopped {
            let context: PCSCContext
            do {
                context = try PCSCContext.establish()
            } catch {
                if outage == nil {
                    logger.warning("pcscd does not answer (\(error)); the PC/SC driver keeps retrying")
                }
                outage = error
                guard control.sleep(seconds: delay) else { return }
                delay = min(delay * 2, settings.longestBackoff)
                continue
            }
            guard control.adopt(context) else {
                context.release()
                return
            }
            if outage != nil { logger.info("pcscd answers again") }
            outage = nil
            let session = PCSCSession(context: context, settings: settings, control: control, events: events, logger: logger)
            let ending = session.run(onStarted: { delay = settings.firstBackoff })
            control.forget()
            context.release()
            guard case .lost(let error) = ending else { return }
            logger.warning("lost pcscd (\(error)): its readers are gone until it answers again")
            outage = error
            guard control.sleep(seconds: delay) else { return }
            delay = min(delay * 2, settings.longestBackoff)
        }
    }
}
