import Foundation
import Logging
import NIOCore
import NIOPosix
import ScanBridgeGateway
import ScanBridgeServer
import ScanBridgeService
import ScanBridgeStore

extension Daemon {
    /// The service watchdog, when systemd watches the daemon (`WatchdogSec=`): it beats while
    /// every event loop runs its tasks and the journal writer runs or commits.
    func watchdog(journal: SQLiteJournal) -> ServiceWatchdog? {
        guard let interval = ServiceWatchdog.interval(in: ProcessInfo.processInfo.environment) else { return nil }
        var loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        if settings.gateway != nil { loops += Array(Gateway.eventLoops.makeIterator()) }
        let loopProbes = loops.enumerated().map { number, loop in
            WatchdogProbe("event loop \(number)") { done in loop.execute(done) }
        }
        let writer = WatchdogProbe("the journal writer", progress: { journal.latestSeq }) { done in
            journal.afterQueuedWrites(done)
        }
        return ServiceWatchdog(interval: interval, probes: loopProbes + [writer], logger: logger)
    }
}
