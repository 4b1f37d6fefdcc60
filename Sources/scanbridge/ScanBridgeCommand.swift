import ArgumentParser

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
            """,
        subcommands: [
            DevicesCommand.self, WatchCommand.self, InjectCommand.self, MockCommand.self, CallCommand.self,
            LookupCommand.self, ProductsCommand.self, OrdersCommand.self, CardsCommand.self, CustomersCommand.self,
            TokensCommand.self, DoctorCommand.self,
        ])
}
