package import Foundation
import Synchronization

/// A private, real pcscd with vsmartcard's vpcd virtual readers, for tests and benchmarks.
///
/// pcscd 1.9.9 always serves `/run/pcscd/pcscd.comm` (`PCSCLITE_CSOCK_NAME` only moves the
/// client's end), so each stack runs pcscd in a mount namespace of its own where
/// `/run/pcscd` is the stack's folder: clients reach it with `PCSCLITE_CSOCK_NAME` set to
/// `socketPath`, and a system pcscd, if any, is left alone. Every vpcd entry listens on
/// two free TCP ports, one per reader (`<name> 00 00`, `<name> 00 01`; the next entry is `01 00`…).
package final class PCSCStack: Sendable {
    package let directory: URL
    package let socketPath: String
    /// The vpcd port of each reader, in pcscd's reader order.
    package let readerPorts: [Int]
    /// The name of each reader, as pcscd lists it.
    package let readerNames: [String]
    package let logPath: String
    private let process = Mutex<Process?>(nil)

    package struct Unavailable: Error, CustomStringConvertible {
        package let description: String
    }

    /// Why this machine cannot run a private pcscd, or nil when it can.
    static let vpcdLibrary = "/usr/lib/pcsc/drivers/serial/libifdvpcd.so"

    package static let unavailableReason: String? = {
        for (path, package) in [
            ("/usr/sbin/pcscd", "pcscd"), (vpcdLibrary, "vsmartcard-vpcd"), ("/usr/bin/unshare", "util-linux"),
        ]
        where !FileManager.default.fileExists(atPath: path) {
            return "\(path) is missing: install the Debian package \(package) (scripts/deps.sh test does)"
        }
        if getuid() != 0 { return "a private pcscd needs root (a mount namespace over /run/pcscd)" }
        return nil
    }()

    /// The environment that points a PC/SC client (`scanbridged`, `pcsc_scan`) at this pcscd.
    package var environment: [String: String] { ["PCSCLITE_CSOCK_NAME": socketPath] }

    /// Starts pcscd with `entries` vpcd entries (two readers each) named `names[i]` (default `Virtual PCD`; give distinct names).
    package init(entries: Int = 1, names: [String] = []) async throws {
        if let reason = Self.unavailableReason { throw Unavailable(description: reason) }
        Self.removeLeftovers()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(Self.folderPrefix + UUID().uuidString.prefix(8))
        let config = directory.appendingPathComponent("reader.conf.d")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Self.recordOwner(in: directory)
        socketPath = directory.appendingPathComponent("pcscd.comm").path
        logPath = directory.appendingPathComponent("pcscd.log").path
        var ports: [Int] = []
        var readerNames: [String] = []
        let entryNames = (0..<entries).map { $0 < names.count ? names[$0] : "Virtual PCD" }
        for (entry, name) in entryNames.enumerated() {
            let port = try Self.freePortPair(avoiding: ports)
            ports += [port, port + 1]
            // The last number is the slot. pcscd 1.9.9 gives serial readers of the same name the
            // same names ("Virtual PCD 00 00" twice), which no client can tell apart: name entries differently.
            readerNames += [name + " 00 00", name + " 00 01"]
            // vpcd keeps its connections in static slots 0 and 1 whatever the entry, and pcscd
            // loads a library once per path (dlopen, once per file): entries sharing one copy
            // would all poll the last entry's ports. A copy of its own per entry keeps them apart.
            var library = Self.vpcdLibrary
            if entry > 0 {
                library = directory.appendingPathComponent("libifdvpcd-\(entry).so").path
                // The real file: the installed name is a relative symbolic link.
                let real = URL(fileURLWithPath: Self.vpcdLibrary).resolvingSymlinksInPath().path
                try FileManager.default.copyItem(atPath: real, toPath: library)
            }
            let text = """
                FRIENDLYNAME "\(name)"
                DEVICENAME   /dev/null:0x\(String(port, radix: 16))
                LIBPATH      \(library)
                CHANNELID    0x\(String(port, radix: 16))

                """
            try text.write(
                to: config.appendingPathComponent(String(format: "vpcd%02d", entry)), atomically: false, encoding: .utf8)
        }
        readerPorts = ports
        self.readerNames = readerNames
        try await start()
    }

    deinit {
        process.withLock { process in
            if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts pcscd (again, after `stop`) and waits until it serves its socket.
    package func start(timeout: Duration = .seconds(20)) async throws {
        // A pcscd killed with SIGKILL leaves its socket and pid file; a new one refuses a live-looking socket.
        for file in ["pcscd.comm", "pcscd.pid"] {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(file))
        }
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let config = directory.appendingPathComponent("reader.conf.d").path
        let child = try Process.launch(
            URL(fileURLWithPath: "/usr/bin/unshare"),
            arguments: [
                "--mount", "--propagation", "private", "sh", "-c",
                "mkdir -p /run/pcscd && mount --bind \"$0\" /run/pcscd && exec /usr/sbin/pcscd --foreground --config \"$1\"",
                directory.path, config,
            ],
            appendingTo: logPath)
        process.withLock { $0 = child }
        try await waitUntil("pcscd to serve \(socketPath); its log:\n\(self.log)", timeout: timeout) {
            if Self.accepts(socketPath) { return true }
            guard !child.hasEnded else {
                throw Unavailable(description: "pcscd exited with status \(child.endStatus):\n\(self.log)")
            }
            return false
        }
    }

    /// Stops pcscd with `signal` (SIGKILL for a crash) and waits until it is gone.
    package func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(10)) async throws {
        guard let child = process.withLock({ $0 }) else { return }
        if child.isRunning { kill(child.processIdentifier, signal) }
        do {
            try await waitUntil("pcscd to exit on signal \(signal)", timeout: timeout) { child.hasEnded }
        } catch {
            kill(child.processIdentifier, SIGKILL)
            throw error
        }
        process.withLock { $0 = nil }
    }

    /// pcscd's log so far.
    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Whether a Unix stream socket at `path` accepts a connection.
    static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withUnixSocketAddress(path) { connect(fd, $0, $1) } == 0
    }

    /// A port p such that p and p+1 are free on 127.0.0.1 (vpcd listens on both).
    static func freePortPair(avoiding taken: [Int]) throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20000...59000)
            if taken.contains(where: { abs($0 - port) < 2 }) { continue }
            if canBind(port), canBind(port + 1) { return port }
        }
        throw Unavailable(description: "found no two free TCP ports in a row for vpcd")
    }

    static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
