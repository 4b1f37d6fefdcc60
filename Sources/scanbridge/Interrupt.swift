import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C as an event to await, for a command that must undo something before it exits.
enum Interrupt {
    /// Returns when SIGINT arrives, or when the calling task is cancelled. Meanwhile SIGINT
    /// does not end the process; afterwards it does again, so a second Ctrl-C still works.
    static func wait() async {
        let (interrupts, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "scanbridge.interrupt"))
        source.setEventHandler { continuation.yield() }
        source.resume()
        defer {
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
        for await _ in interrupts { return }
    }
}
