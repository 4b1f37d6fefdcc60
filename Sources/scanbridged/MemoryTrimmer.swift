import Foundation
import NIOPosix
import ServiceLifecycle

/// Gives freed heap back to the system every few seconds. A burst of scans (thousands of
/// requests in flight) leaves glibc's arenas holding memory the daemon no longer uses; on a
/// small counter box that memory belongs to the POS, not to us.
struct MemoryTrimmer: Service {
    /// glibc's `malloc_trim`, looked up at run time: Swift's Glibc module does not import
    /// <malloc.h>, and on another C library there is simply nothing to trim.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    var interval: Duration = .seconds(2)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                // malloc_trim walks the heap: not on the cooperative pool.
                _ = try? await NIOThreadPool.singleton.runIfActive { Self.trim?(0) }
            }
        }
    }
}
