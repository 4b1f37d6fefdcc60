import ArgumentParser
import ScanBridgeClient

/// `scanbridge orders …`: repair orders and the devices booked in on them.
struct OrdersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "Manage repair orders and their devices.",
        subcommands: [ImportCommand<OrderImport>.self])
}

/// `orders import`: repair orders through `orders.upsert`.
enum OrderImport: ImportKind {
    static let isCatalog = false
    static var target: ImportTarget { .orders() }

    static var discussion: String {
        """
        One device per row: consecutive rows with the same id are one order, and a row without deviceId \
        adds no device (an order given without devices keeps those it has). JSON objects are orders as \
        docs/protocol.md shows them, each with its devices array.

        Examples:
          scanbridge orders import orders.csv
          scanbridge orders import orders.json
        """
    }
}
