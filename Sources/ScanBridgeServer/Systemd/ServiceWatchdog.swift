import Foundation
import Logging
import ServiceLifecycle

/// Tells systemd the daemon is alive (`WATCHDOG=1`) every half of `WatchdogSec=`, but only
/// when every part it watches has shown progress since the beat before: an event loop that
/// no longer runs its tasks, or a journal writer stuck in a write, stops the beats, and
/// systemd restarts the daemon. A process that merely runs would keep beating.
package final class ServiceWatchdog: Service {
    let interval: Duration
    let probes: [WatchdogProbe]
    let logger: Logger
    let beat: @Sendable () -> Void

    package init(
        interval: Duration, probes: [WatchdogProbe], logger: Logger,
        beat: @escaping @Sendable () -> Void = { SystemdNotifier.notify("WATCHDOG=1") }
    ) {
        self.interval = interval
        self.probes = probes
        self.logger = logger
        self.beat = beat
    }

    /// Half of `$WATCHDOG_USEC` when the service manager watches this process (sd_watchdog_enabled(3)).
    package static func interval(in environment: [String: String], pid: pid_t = getpid()) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else {
            return nil
        }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty, pid_t(owner) != pid { return nil }
        return .microseconds(microseconds / 2)
    }

    package func run() async throws {
        // Stops at once on a graceful shutdown, not at the end of a sleep.
        try? await cancelWhenGracefulShutdown { try await self.beatWhileEveryPartMoves() }
    }

    private func beatWhileEveryPartMoves() async throws {
        var stalledBefore: [String] = []
        while true {
            let stalled = probes.filter { !$0.moved() }.map(\.name)
            if stalled.isEmpty {
                beat()
                if !stalledBefore.isEmpty {
                    logger.notice("watchdog: \(stalledBefore.joined(separator: ", ")) moves again")
                }
            } else if stalled != stalledBefore {
                logger.critical(
                    "watchdog: \(stalled.joined(separator: ", ")) made no progress in \(interval); not telling systemd the daemon is alive, so that it restarts it"
                )
            }
            stalledBefore = stalled
            try await Task.sleep(for: interval)
        }
    }
}
