import NIOCore

/// Runs tasks on a channel's event loop. A connection's requests run here, so a request
/// reaches its handler with no thread hop; handlers never block (GRDB work hops to its own
/// queues), so the loop stays free for I/O.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: an event loop is thread-safe; `any EventLoop` is not marked Sendable-checked here.
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
