import Foundation
import ScanBridgeTesting
import Synchronization

/// A figure of a process sampled every `interval` until `stop()`: the peak a scenario
/// reports, beside the kernel's own `VmHWM` for its memory.
final class Peak: Sendable {
    private let peak = Mutex(0.0)
    private let sampler = Mutex<Task<Void, Never>?>(nil)
    static let interval = Duration.milliseconds(100)

    init(sampling sample: @escaping @Sendable () -> Double) {
        let task = Task { [self] in
            while !Task.isCancelled {
                let value = sample()
                peak.withLock { $0 = max($0, value) }
                try? await Task.sleep(for: Self.interval)
            }
        }
        sampler.withLock { $0 = task }
    }

    /// Its `VmRSS`, in megabytes.
    static func rss(of pid: Int32) -> Peak {
        Peak { ProcessStat.megabytes("VmRSS", of: pid) }
    }

    /// Its open descriptors.
    static func descriptors(of pid: Int32) -> Peak {
        Peak { Double((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0) }
    }

    /// Stops sampling; returns the peak seen.
    @discardableResult
    func stop() -> Double {
        sampler.withLock { $0?.cancel() }
        return peak.withLock { $0 }
    }
}
