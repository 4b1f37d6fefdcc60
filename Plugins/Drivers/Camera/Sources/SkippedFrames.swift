/// Frames a camera had to skip (a damaged buffer, a truncated MJPEG frame), told to the log
/// at most once per `interval`, with how many were skipped since: a camera sending garbage
/// at 30 frames a second must not flood the log, nor go unnoticed. Pure: times are passed in.
struct SkippedFrames {
    let interval: Duration
    private var lastSaid: Duration?
    private var unsaid = 0

    init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// Notes a skipped frame at `time`; the warning to log now, if one is due.
    mutating func skipped(_ reason: String, at time: Duration) -> String? {
        unsaid += 1
        if let lastSaid, time - lastSaid < interval { return nil }
        defer {
            lastSaid = time
            unsaid = 0
        }
        return unsaid == 1 ? "skipped a frame: \(reason)" : "skipped \(unsaid) frames, the last: \(reason)"
    }
}
