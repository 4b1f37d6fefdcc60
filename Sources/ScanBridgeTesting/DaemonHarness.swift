package import Foundation
package import ScanBridgeClient
import Synchronization

/// Runs the real `scanbridged` binary on a temporary socket and database, for end-to-end
/// tests and benchmarks: start, stop with SIGTERM, kill -9, restart on the same database.
package final class DaemonHarness: Sendable {
    /// The harness's own folder; everything it writes is inside.
    package let directory: URL
    package let socketPath: String
    package let databasePath: String
    /// The daemon's stderr, kept across restarts.
    package let logPath: String
    package let arguments: [String]
    /// The `scanbridged` binary run; nil: the one in `productsDirectory`.
    package let executable: URL?
    private let process = Mutex<Process?>(nil)
    private let gateway = Mutex<[String]>([])
    /// The socket the daemon sends sd_notify messages to, kept after READY=1.
    private let notifications = Mutex<ReadinessSocket?>(nil)
    /// Set when another harness took over the folder.
    private let keepsFolder = Mutex(false)

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// - Parameters:
    ///   - arguments: extra `scanbridged` options (`--mock barcode:till-1`, `--config …`).
    ///   - executable: another `scanbridged` build than the one in `productsDirectory`.
    package convenience init(arguments: [String] = [], executable: URL? = nil) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("scanbridge-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.init(directory: directory, arguments: arguments, executable: executable)
    }

    private init(directory: URL, arguments: [String], executable: URL? = nil) {
        self.directory = directory
        socketPath = directory.appendingPathComponent("scanbridge.sock").path
        databasePath = directory.appendingPathComponent("scanbridge.sqlite").path
        logPath = directory.appendingPathComponent("scanbridged.log").path
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        self.arguments = arguments
        self.executable = executable
    }

    /// A harness on the same folder, socket and database with other options (e.g. after
    /// writing a config file into the folder). The old harness must not be running.
    package static func reusing(_ other: DaemonHarness, arguments: [String]) throws -> DaemonHarness {
        other.keepsFolder.withLock { $0 = true }
        return DaemonHarness(directory: other.directory, arguments: arguments, executable: other.executable)
    }

    deinit {
        process.withLock { process in
            if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        if !keepsFolder.withLock({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }

    /// The folder of the built products (`.build/debug`): where this test binary is, or `SCANBRIDGE_BIN_DIR`.
    package static var productsDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["SCANBRIDGE_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        // In a bundle layout the binary sits in X.xctest/…; step out of it.
        while folder.path.contains(".xctest") { folder.deleteLastPathComponent() }
        return folder
    }

    /// Writes a file into the harness folder (a config, a script) and returns its path.
    @discardableResult
    package func write(_ name: String, _ contents: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        // Not atomically: Foundation on Linux leaves an empty TemporaryDirectory.* behind for each atomic write.
        try contents.write(to: url, atomically: false, encoding: .utf8)
        return url.path
    }

    /// Starts the daemon and waits until it says READY=1 through `NOTIFY_SOCKET`, as it
    /// would to systemd; fails with the daemon's log when it exits or stays silent.
    package func start(timeout: Duration = .seconds(20), environment: [String: String] = [:]) async throws {
        let binary = executable ?? Self.productsDirectory.appendingPathComponent("scanbridged")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw Failure(description: "no scanbridged binary at \(binary.path); run `swift build` first")
        }
        let readiness = try ReadinessSocket(
            path: directory.appendingPathComponent("notify-\(UUID().uuidString.prefix(6)).sock").path)
        // A configuration folder of its own, empty unless a test fills it: no test daemon
        // reads the machine's /etc/scanbridge/scanbridge.yaml.
        let childEnvironment = ProcessInfo.processInfo.environment
            .merging(["CONFIGURATION_DIRECTORY": directory.appendingPathComponent("etc").path]) { $1 }
            .merging(environment) { $1 }
            .merging(["NOTIFY_SOCKET": readiness.path]) { $1 }
        let child = try await waitFor("scanbridged to start (\(binary.path))", timeout: .seconds(10)) { () -> Process? in
            do {
                return try Process.launch(
                    binary, arguments: ["--socket", socketPath, "--database", databasePath] + arguments,
                    environment: childEnvironment, appendingTo: logPath)
            } catch let error as CocoaError where (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(ETXTBSY) {
                // A script a test has just written is still open for writing in a child another
                // thread is starting (until that child execs): try again in a moment.
                return nil
            }
        }
        process.withLock { $0 = child }
        try await waitUntil("scanbridged to say READY=1 on \(socketPath); its log:\n\(self.log)", timeout: timeout) {
            for message in readiness.receive() {
                let lines = message.split(separator: "\n")
                guard lines.contains("READY=1") else { continue }
                let addresses = lines.filter { $0.hasPrefix("SCANBRIDGE_HTTP=") }.map { String($0.dropFirst(16)) }
                gateway.withLock { $0 = addresses }
                notifications.withLock { $0 = readiness }
                return true
            }
            guard !child.hasEnded else {
                process.withLock { $0 = nil }
                throw Failure(description: "scanbridged exited with status \(child.endStatus):\n\(self.log)")
            }
            return false
        }
    }

    /// The sd_notify messages the daemon sent since the last call (after READY=1).
    package func notices() -> [String] {
        notifications.withLock { $0?.receive() ?? [] }
    }

    /// The addresses the gateway listens on, as the daemon said with READY=1 (a port 0 resolved).
    package var gatewayAddresses: [String] { gateway.withLock { $0 } }

    /// A client of the gateway's first address.
    package func gatewayClient(trusting certificate: String? = nil) throws -> GatewayClient {
        guard let address = gatewayAddresses.first else {
            throw Failure(description: "the daemon runs no gateway; start it with --http 127.0.0.1:0")
        }
        return try GatewayClient(address: address, trusting: certificate)
    }

    /// The running daemon's process id.
    package var pid: Int32? {
        process.withLock { $0?.isRunning == true ? $0?.processIdentifier : nil }
    }

    /// Sends `signal` and waits for the process to exit; returns its termination status. The
    /// deadline is for a daemon that does not stop at all: at the start of a full run, with
    /// every suite's daemons starting on two cores, a clean stop can take seconds.
    @discardableResult
    package func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(30)) async throws -> Int32 {
        guard let child = process.withLock({ $0 }) else { throw Failure(description: "the daemon is not running") }
        if child.isRunning { kill(child.processIdentifier, signal) }
        do {
            try await waitUntil("scanbridged to exit on signal \(signal)", timeout: timeout) { child.hasEnded }
        } catch {
            // What it was doing, before it is killed: a zombie ("Z") has exited and was not
            // reaped; otherwise each thread's name and where the kernel has it waiting.
            let threads = Self.threads(of: child.processIdentifier)
            kill(child.processIdentifier, SIGKILL)
            throw Failure(
                description:
                    "\(error)\nthreads: \(threads)\nits log's end:\n\(log.split(separator: "\n").suffix(40).joined(separator: "\n"))"
            )
        }
        // Reaped as a rule a moment later; not when Foundation's child watcher is held (ExitedChild).
        try? await waitUntil("scanbridged to be reaped", timeout: .seconds(5)) { !child.isRunning }
        process.withLock { $0 = nil }
        return child.endStatus
    }

    /// Each thread of `pid` as `name state wchan`, from /proc.
    static func threads(of pid: Int32) -> String {
        let folder = "/proc/\(pid)/task"
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return tasks.sorted().map { task -> String in
            let read = { (file: String) in
                ((try? String(contentsOfFile: "\(folder)/\(task)/\(file)", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let stat = read("stat")
            let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
            return "\(read("comm")) \(state) \(read("wchan"))"
        }.joined(separator: "; ")
    }

    /// Kills the daemon with SIGKILL, as a crash or power-cut of the process would.
    package func crash() async throws {
        try await stop(signal: SIGKILL)
    }

    /// A new client connection to the daemon.
    package func connect() async throws -> ScanBridgeClient {
        try await ScanBridgeClient.connect(socketPath: socketPath)
    }

    /// The daemon's log so far.
    package var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }
}
