import Foundation

/// Monotonic nanoseconds, cheap enough to stamp every message.
enum Nanos {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Sleeps until the monotonic time `target` (a paced sender's next slot).
    static func sleep(until target: UInt64) async {
        let now = now()
        if target > now + 50_000 {
            try? await Task.sleep(for: .nanoseconds(Int(target - now - 50_000)))
        }
        while Nanos.now() < target { await Task.yield() }
    }

    /// Blocks this thread until the monotonic time `target` (a paced sender on a thread of its own).
    static func wait(until target: UInt64) {
        var time = timespec(tv_sec: Int(target / 1_000_000_000), tv_nsec: Int(target % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        UInt64(components.seconds) * 1_000_000_000 + UInt64(components.attoseconds / 1_000_000_000)
    }
}
