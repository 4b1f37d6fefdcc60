import Foundation
import ScanBridgeTesting
import Synchronization

/// A process's `VmRSS` sampled often until `stop()`: the peak a scenario reports
/// beside the kernel's own `VmHWM`.
final class PeakRSS: Sendable {
    private let peak = Mutex(0.0)
    private let sampler = Mutex<Task<Void, Never>?>(nil)

    init(of pid: Int32) {
        let task = Task { [self] in
            while !Task.isCancelled {
                let rss = ProcessStat.megabytes("VmRSS", of: pid)
                peak.withLock { $0 = max($0, rss) }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        sampler.withLock { $0 = task }
    }

    /// Stops sampling; returns the peak seen, in megabytes.
    @discardableResult
    func stop() -> Double {
        sampler.withLock { $0?.cancel() }
        return peak.withLock { $0 }
    }
}
