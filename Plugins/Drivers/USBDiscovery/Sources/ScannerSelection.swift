import DeviceNodes

/// Which discovered devices are scanners: those of a scanner maker (`ScannerVendors`), or
/// named so ("Barcode", "Scanner"), or claimed by the operator; never one the operator
/// released. A keyboard is never taken by guess: a plain keyboard matches none of these.
public struct ScannerSelection: Sendable, Equatable {
    /// `vvvv:pppp` (hex) or device ids, taken as scanners whatever their maker.
    public var claimed: Set<String>
    /// `vvvv:pppp` or device ids never taken, even from a scanner maker.
    public var released: Set<String>

    public init(claimed: [String] = [], released: [String] = []) {
        self.claimed = Set(claimed.map { $0.lowercased() })
        self.released = Set(released.map { $0.lowercased() })
    }

    /// Whether `node` (as device `id`) is a scanner, and why, for the log.
    public func reason(_ node: DiscoveredNode, id: String) -> String? {
        if releases(node, id: id) { return nil }
        if Self.keys(node, id: id).contains(where: claimed.contains) { return "claimed in the config" }
        if let vendor = node.vendorId, let maker = ScannerVendors.all.first(where: { $0.id == vendor }) {
            return "made by \(maker.maker)"
        }
        if let name = node.name?.lowercased(), name.contains("barcode") || name.contains("scanner") {
            return "named \(node.name ?? "")"
        }
        return nil
    }

    /// Whether the operator released `node` (as device `id`): never taken, whatever it is.
    public func releases(_ node: DiscoveredNode, id: String) -> Bool {
        Self.keys(node, id: id).contains(where: released.contains)
    }

    /// The names the config may give a device by: its id, and `vvvv:pppp`.
    private static func keys(_ node: DiscoveredNode, id: String) -> [String] {
        let product = node.vendorId.flatMap { vendor in node.productId.map { "\(vendor.usbID):\($0.usbID)" } }
        return [id.lowercased()] + (product.map { [$0] } ?? [])
    }
}
