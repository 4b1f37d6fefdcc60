import Dispatch
import Foundation
import ScanBridgeTesting
import Synchronization

/// What the `shop` scenario starts that would outlive the benchmark: its daemons, and its
/// PostgreSQL server, which pg_ctl starts in a session of its own (a Ctrl-C at the terminal
/// never reaches it). The scenario stops them itself when it ends, failed or not; this is
/// for an interrupted run: SIGINT or SIGTERM kills every daemon and server still running,
/// removes their folders, and ends the benchmark. A SIGKILL leaves them, as it would any
/// program's.
enum ShopCleanup {
    private struct Held {
        var daemons: [DaemonHarness] = []
        var servers: [TestPostgres] = []
        var files: [String] = []
        var signals: [any DispatchSourceSignal] = []
        var interrupted = false
    }

    private static let held = Mutex(Held())

    static func track(_ daemon: DaemonHarness) {
        held.withLock { $0.daemons.append(daemon) }
    }

    static func track(_ server: TestPostgres) {
        held.withLock { $0.servers.append(server) }
    }

    /// A file of the scenario's own (a database copied for its counters), removed when it
    /// ends, or is interrupted: the benchmark's folder is removed only when it ends as usual.
    static func track(file path: String) {
        held.withLock { $0.files.append(path) }
    }

    /// Lets go of everything tracked, the scenario having stopped its daemons and server,
    /// and removes the files tracked.
    static func forgetAll() {
        for file in held.withLock({ $0.files }) { try? FileManager.default.removeItem(atPath: file) }
        held.withLock {
            $0.daemons = []
            $0.servers = []
            $0.files = []
        }
    }

    /// Catches SIGINT and SIGTERM until `uninstall()`. Children still start with the default
    /// handling: libdispatch catches them with a handler of its own, which an exec resets.
    static func install() {
        held.withLock { state in
            guard state.signals.isEmpty else { return }
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    held.withLock { $0.interrupted = true }
                    FileHandle.standardError.write(
                        Data("\nshop: interrupted (signal \(number)); stopping its daemons and PostgreSQL server\n".utf8))
                    killAll()
                    exit(128 + number)
                }
                source.resume()
                state.signals.append(source)
            }
        }
    }

    /// Once interrupted, the scenario's own failure (its daemons killed under it) waits here
    /// for the signal's handler to end the process, rather than end it as a crash.
    static func holdIfInterrupted() async {
        while held.withLock({ $0.interrupted }) { try? await Task.sleep(for: .seconds(1)) }
    }

    static func uninstall() {
        held.withLock { state in
            for source in state.signals { source.cancel() }
            state.signals = []
        }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// Kills what is tracked at once: each daemon with SIGKILL, each server's postmaster with
    /// SIGQUIT (PostgreSQL's immediate shutdown, which ends its backends too), waited for up
    /// to 5 s; then their folders and the files tracked go.
    static func killAll() {
        let (daemons, servers, files) = held.withLock { ($0.daemons, $0.servers, $0.files) }
        for file in files { try? FileManager.default.removeItem(atPath: file) }
        for daemon in daemons {
            if let pid = daemon.pid { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(at: daemon.directory)
        }
        for server in servers {
            let pidFile = server.directory.appendingPathComponent("data/postmaster.pid").path
            let text = (try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? ""
            if let first = text.split(separator: "\n").first, let postmaster = pid_t(first) {
                kill(postmaster, SIGQUIT)
                for _ in 0..<100 where kill(postmaster, 0) == 0 { usleep(50_000) }
            }
            try? FileManager.default.removeItem(at: server.directory)
        }
    }
}
