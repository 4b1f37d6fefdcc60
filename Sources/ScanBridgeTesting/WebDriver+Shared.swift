import Foundation
import Glibc
import Synchronization

extension WebDriver {
    /// The run's one chromedriver: started by the first browser test and shared by the
    /// others, each of which opens a session (a Chromium of its own) and deletes it. It is
    /// killed with its browsers when the test process exits; one that died is started again.
    package static func shared() async throws -> WebDriver {
        for _ in 0..<2 {
            let start = SharedDriver.start.withLock { start in
                let task = start ?? Task { SharedDriver.started(try await WebDriver.start()) }
                start = task
                return task
            }
            let driver = try await start.value
            if driver.isRunning { return driver }
            SharedDriver.start.withLock { if $0 == start { $0 = nil } }
        }
        throw WebDriverError(command: "start", error: "exited", message: "the shared chromedriver exited twice")
    }
}

private enum SharedDriver {
    static let start = Mutex<Task<WebDriver, any Error>?>(nil)
    /// Every shared driver started, for the exit handler to kill.
    static let running = Mutex<[(pid: pid_t, directory: URL)]>([])
    static let killedAtExit: Void = { atexit { SharedDriver.killAll() } }()

    static func started(_ driver: WebDriver) -> WebDriver {
        running.withLock { $0.append((driver.pid, driver.directory)) }
        _ = killedAtExit
        return driver
    }

    static func killAll() {
        for (pid, directory) in running.withLock({ $0 }) {
            WebDriver.kill(pid, browsersOf: directory)
            try? FileManager.default.removeItem(at: directory)
        }
    }
}
