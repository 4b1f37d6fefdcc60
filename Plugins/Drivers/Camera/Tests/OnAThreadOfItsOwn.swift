import Foundation

/// Runs `body` on a new thread at the lowest priority (nice 19), not on Swift's cooperative
/// pool: seconds of image work in a debug build would otherwise delay the tasks and threads
/// of the suites running beside these (backpressure, serial timing) on a small machine.
func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            // Linux nice values are per thread: 0 is this thread, not the whole process.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            continuation.resume(with: Result { try body() })
        }.start()
    }
}
