import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeServer
import ScanBridgeService
import ScanBridgeStore
import ServiceLifecycle

/// `scanbridged`: finds the scanners, normalises every read into a scan event, routes it
/// to its domain handler, and streams the results over a Unix socket (docs/protocol.md).
@main
struct ScanBridgeDaemon: AsyncParsableCommand {
    static let version = ScanBridgeVersion.current

    static let configuration = CommandConfiguration(
        commandName: "scanbridged",
        abstract: "The ScanBridge daemon: scanners, card readers and QR cameras to a JSON-RPC socket.",
        version: version)

    @Option(
        help:
            """
            The Unix socket to serve (default: $SCANBRIDGE_SOCKET, $RUNTIME_DIRECTORY/scanbridge.sock, \
            $XDG_RUNTIME_DIR/scanbridge/scanbridge.sock, /run/scanbridge/scanbridge.sock as root; \
            with none of them the daemon does not start).
            """
    )
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "The SQLite database file, created with its schema when missing.",
            discussion: """
                Default: the config's database, else $STATE_DIRECTORY/scanbridge.sqlite, \
                /var/lib/scanbridge/scanbridge.sqlite as root, else \
                $XDG_DATA_HOME/scanbridge/scanbridge.sqlite.
                """))
    var database: String?

    @Option(
        help: ArgumentHelp(
            "The shop's shared store: postgresql://USER@HOST[:PORT]/DATABASE (replaces store.url).",
            discussion: """
                Every counter of the shop names the same database; this daemon copies its events \
                there. The password comes from store.password_file, $PGPASSWORD or ~/.pgpass. \
                Without it, the local SQLite database alone.
                """))
    var store: String?

    @Option(
        help: ArgumentHelp(
            "A YAML config file.",
            discussion: """
                Default: $CONFIGURATION_DIRECTORY/scanbridge.yaml, else \
                /etc/scanbridge/scanbridge.yaml, when it exists; else the built-in defaults.
                """))
    var config: String?

    @Option(
        name: .customLong("mock"),
        help: "Attach a mock device at start: KIND[:ID] with KIND nfc, barcode or qr. Repeatable. Runs the mock driver.")
    var mocks: [String] = []

    @Option(
        name: .customLong("device"),
        help: "Open a node with a driver, bypassing discovery: DRIVER:PATH[,KEY=VALUE...]. Repeatable.")
    var devices: [String] = []

    @Option(
        help:
            "Only these drivers run, comma-separated (e.g. mock or mock,pcsc). Default: every built-in driver but mock, unless mock devices are asked for."
    )
    var drivers: String?

    @Option(
        name: .customLong("http"),
        help:
            "Serve the gateway (HTTP, WebSocket, Server-Sent Events) on ADDRESS:PORT, e.g. 127.0.0.1:8765 or [::1]:0. Repeatable; replaces http.listen."
    )
    var httpListen: [String] = []

    @Option(
        name: .customLong("allow-origin"),
        help:
            "Let web pages from ORIGIN (scheme://host[:port], e.g. http://localhost:5173) call the gateway, as http.origins does. Repeatable; added to http.origins."
    )
    var allowOrigins: [String] = []

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    func run() async throws {
        // Every file the daemon creates (the database and its log, folders) is its user's
        // alone unless it says otherwise; set before NIO, the drivers and the database start
        // threads, since the mask is the process's. The socket gets its own (SocketFile.bind).
        umask(0o077)
        // First: taking the passed sockets edits the environment.
        let activated: ActivatedSockets
        do {
            activated = try ActivatedSockets.take()
        } catch {
            FileHandle.standardError.write(Data("scanbridged: \(error)\n".utf8))
            throw ExitCode(2)
        }
        // One event loop serves every client (set before NIO's shared group first starts). A
        // counter has a few clients, and with one loop a committed scan wakes one thread to
        // write to all of its subscribers, not one thread per loop that holds some of them;
        // the journal's writer has the other core. One loop delivers sooner than two, for the
        // same throughput (docs/architecture.md, Design decisions).
        NIOSingletons.groupLoopCountSuggestion = 1
        let started = ContinuousClock.now
        let settings: DaemonSettings
        do {
            // Reads files and the group database: off the cooperative pool.
            let options = self
            settings = try await NIOThreadPool.singleton.runIfActive {
                try DaemonSettings(options: options, activated: activated)
            }
        } catch {
            FileHandle.standardError.write(Data("scanbridged: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let journald = DaemonLogHandler.standardErrorIsJournal(environment: ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { label in
            var handler = DaemonLogHandler(label: label, format: settings.logFormat, journald: journald)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: "scanbridge")
        do {
            try await Daemon(settings: settings, logger: logger, started: started).run()
        } catch {
            logger.critical("scanbridged stopped: \(error)")
            throw ExitCode(1)
        }
    }
}
