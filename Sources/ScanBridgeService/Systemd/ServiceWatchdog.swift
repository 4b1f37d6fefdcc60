package import Foundation
package import Logging
import ServiceLifecycle

/// Tells systemd the daemon is alive (`WATCHDOG=1`) every quarter of `WatchdogSec=`, but only
/// while every part it watches has shown progress within the last half of it: an event loop that no
/// longer runs its tasks, or a journal writer stuck in a write, stops the beats, and systemd
/// restarts the daemon. A process that merely runs would keep beating. A part that answers
/// a little late costs no beat, and one stuck for less than half of `WatchdogSec=` never
/// costs the daemon its life.
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
        let clock = ContinuousClock()
        var lastMoved = [ContinuousClock.Instant](repeating: clock.now, count: probes.count)
        var stalled = Set<Int>()
        while true {
            let now = clock.now
            for (index, probe) in probes.enumerated() where probe.moved() { lastMoved[index] = now }
            let stalledNow = Set(probes.indices.filter { now - lastMoved[$0] > interval })
            for index in stalledNow.subtracting(stalled).sorted() {
                logger.critical(
                    "watchdog: \(probes[index].name) made no progress in \(interval); while it makes none, systemd is not told the daemon is alive and restarts it"
                )
            }
            for index in stalled.subtracting(stalledNow).sorted() {
                logger.notice("watchdog: \(probes[index].name) moves again")
            }
            stalled = stalledNow
            if stalled.isEmpty { beat() }
            try await Task.sleep(for: interval / 2)
        }
    }
}
