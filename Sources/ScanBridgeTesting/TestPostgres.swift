package import Foundation

/// A private, real PostgreSQL server for tests: Debian's `postgresql` binaries, a cluster made
/// by initdb in a temporary folder, `trust` authentication, listening on a Unix socket in that
/// folder and on a free port of 127.0.0.1. PostgreSQL refuses to run as root, so as root the
/// server runs as the `postgres` user the Debian package creates.
package final class TestPostgres: Sendable {
    package let directory: URL
    package let port: Int
    /// The superuser initdb made, whom `trust` lets in without a password.
    package let user = "scanbridge"
    private let binaries: String
    private let runAs: [String]

    package struct Unavailable: Error, CustomStringConvertible {
        package let description: String
    }

    /// The folder of initdb, pg_ctl and psql of the newest PostgreSQL installed.
    static let binaryFolder: String? = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { "\(root)/\($0)/bin" }
    }()

    /// Why this machine cannot run a test server, or nil when it can.
    package static let unavailableReason: String? = {
        guard let folder = binaryFolder, FileManager.default.isExecutableFile(atPath: "\(folder)/initdb") else {
            return "PostgreSQL is not installed: install the Debian package postgresql (make test does)"
        }
        if getuid() == 0 && getpwnam("postgres") == nil {
            return "PostgreSQL refuses to run as root and there is no postgres user to run it as"
        }
        return nil
    }()

    /// Makes a cluster and starts its server.
    package init() async throws {
        if let reason = Self.unavailableReason { throw Unavailable(description: reason) }
        binaries = Self.binaryFolder ?? ""
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("scanbridge-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        if getuid() == 0, let account = getpwnam("postgres") {
            chown(directory.path, account.pointee.pw_uid, account.pointee.pw_gid)
            runAs = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        } else {
            runAs = []
        }
        chmod(directory.path, 0o755)
        port = try Self.freePort()
        try await run(
            "initdb", "--pgdata", dataPath, "--username", user, "--auth", "trust", "--encoding", "UTF8",
            "--locale", "C", "--no-sync")
        try await start()
    }

    deinit {
        // The server outlives no test, even one that failed. An immediate shutdown (SIGQUIT
        // to the postmaster) is asked at once; waiting for it and removing the folder happen
        // on a thread of their own, never on the cooperative pool the other tests share.
        let postmaster = (try? serverProcesses())?.first
        if let postmaster { kill(postmaster, SIGQUIT) }
        let directory = self.directory
        Thread.detachNewThread {
            for _ in 0..<100 {
                guard let postmaster, kill(postmaster, 0) == 0 else { break }
                usleep(50_000)
            }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    var dataPath: String { directory.appendingPathComponent("data").path }

    /// `postgresql://…` for a database of this server, through its Unix socket.
    package func url(database: String) -> String {
        "postgresql://\(user)@localhost:\(port)/\(database)?host=\(directory.path)"
    }

    /// The same database over TCP on 127.0.0.1.
    package func tcpURL(database: String) -> String {
        "postgresql://\(user)@127.0.0.1:\(port)/\(database)"
    }

    /// Starts the server (again), waiting until it takes connections.
    package func start() async throws {
        try await run(
            "pg_ctl", "--pgdata", dataPath, "--wait", "--log", directory.appendingPathComponent("server.log").path,
            "-o", "-k \(directory.path) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50",
            "start")
    }

    /// Stops the server, ending every connection at once, as a crash or a pulled cable would.
    package func stop() async throws {
        try await run("pg_ctl", "--pgdata", dataPath, "--wait", "stop", "-m", "immediate")
    }

    /// Freezes the server and its backends (SIGSTOP): connections stay open and queries get
    /// no answer, as from a server whose machine lost power behind a live route.
    package func freeze() throws {
        for pid in try serverProcesses() { kill(pid, SIGSTOP) }
    }

    /// Lets a frozen server go on.
    package func thaw() throws {
        for pid in try serverProcesses() { kill(pid, SIGCONT) }
    }

    /// The postmaster (the first line of its pid file) and its children, from /proc.
    private func serverProcesses() throws -> [pid_t] {
        let pidFile = try String(contentsOfFile: "\(dataPath)/postmaster.pid", encoding: .utf8)
        guard let first = pidFile.split(separator: "\n").first, let postmaster = pid_t(first) else {
            throw Unavailable(description: "no postmaster pid in \(dataPath)/postmaster.pid")
        }
        var pids = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (name) state ppid": the name may hold spaces, so count from its end.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { pids.append(pid) }
        }
        return pids
    }

    /// Turns TLS on with this certificate and key (PostgreSQL reads them again on a reload):
    /// clients may then ask for it, and those that do not still connect.
    package func useTLS(_ certificates: TestCertificates) async throws {
        for (file, name) in [(certificates.certificate, "server.crt"), (certificates.key, "server.key")] {
            let target = "\(dataPath)/\(name)"
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: file, toPath: target)
            chmod(target, 0o600)
            if getuid() == 0, let account = getpwnam("postgres") {
                chown(target, account.pointee.pw_uid, account.pointee.pw_gid)
            }
        }
        _ = try await psql("ALTER SYSTEM SET ssl = on", database: "postgres")
        _ = try await psql("SELECT pg_reload_conf()", database: "postgres")
    }

    package func createDatabase(_ name: String) async throws {
        _ = try await psql("CREATE DATABASE \"\(name)\"", database: "postgres")
    }

    /// Runs SQL with psql and returns what it printed: unaligned, tuples only, `|` between columns.
    package func psql(_ sql: String, database: String) async throws -> String {
        let output = directory.appendingPathComponent("psql-\(UUID().uuidString.prefix(8)).out").path
        defer { unlink(output) }
        try await run(
            "psql", "--no-psqlrc", "--host", directory.path, "--port", "\(port)", "--username", user,
            "--dbname", database, "--tuples-only", "--no-align", "--set", "ON_ERROR_STOP=1",
            "--command", sql, "--output", output)
        return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a tool in the server's folder: initdb fails in a folder its user cannot enter.
    private func run(_ tool: String, _ arguments: String...) async throws {
        let child = try DirectChild(command: runAs + ["/usr/bin/env", "-C", directory.path, "\(binaries)/\(tool)"] + arguments)
        let status = try await child.finish(timeout: .seconds(120))
        guard status == 0 else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            throw Unavailable(description: "\(tool) failed with status \(status): \(child.errors)\n\(log.suffix(2000))")
        }
    }

    private static func freePort() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20000...59000)
            if PCSCStack.canBind(port) { return port }
        }
        throw Unavailable(description: "found no free TCP port for PostgreSQL")
    }
}
