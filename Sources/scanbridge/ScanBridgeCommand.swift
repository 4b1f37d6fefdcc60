import ArgumentParser
import ScanBridgeRPC

/// `scanbridge`: the command-line client of the ScanBridge daemon.
@main
struct ScanBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scanbridge",
        abstract: "Talk to the ScanBridge daemon: devices, scans, the catalog, cards and customers.",
        discussion: """
            The daemon's socket is --socket PATH, else $SCANBRIDGE_SOCKET, else \
            $RUNTIME_DIRECTORY/scanbridge.sock, else $XDG_RUNTIME_DIR/scanbridge/scanbridge.sock \
            and then /run/scanbridge/scanbridge.sock when nothing answers there.

            Exit status: 0 done; 1 a negative answer (not found, problems, skipped rows, an error \
            answer); 2 the daemon cannot be reached; 3 refused: your role (or user) may not; 64 a \
            bad option or argument. Commands that print a result take --json: one JSON value on \
            standard output (JSON lines for watch). Colour only on a terminal, never with NO_COLOR set.
            """,
        version: ScanBridgeVersion.current,
        subcommands: [
            DevicesCommand.self, WatchCommand.self, InjectCommand.self, MockCommand.self, CallCommand.self,
            LookupCommand.self, ProductsCommand.self, OrdersCommand.self, CardsCommand.self, CustomersCommand.self,
            TokensCommand.self, StoreCommand.self, DoctorCommand.self,
        ])
}
