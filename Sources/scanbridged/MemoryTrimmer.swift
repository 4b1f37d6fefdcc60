import CHeap
import NIOPosix
import ServiceLifecycle

/// Gives freed heap back to the system every few seconds. A burst of scans (thousands of
/// requests in flight) leaves glibc's arenas holding memory the daemon no longer uses; on a
/// small counter box that memory belongs to the POS, not to us. (CHeap also caps the
/// arenas at four, from before the first thread starts.)
struct MemoryTrimmer: Service {
    var interval: Duration = .seconds(2)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                // malloc_trim walks the heap: not on the cooperative pool.
                _ = try? await NIOThreadPool.singleton.runIfActive { cheap_trim() }
            }
        }
    }
}
