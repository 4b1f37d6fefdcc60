/// Which discovered devices are scanners: those of a scanner maker (`ScannerVendors`), or
/// named so ("Barcode", "Scanner"), or claimed; never one released. A keyboard is never taken
/// by guess: a plain keyboard matches none of these.
///
/// Claims and releases come in two layers, each keyed by `vvvv:pppp` or a device id
/// (`ScannerKey`): the config file's `scanners.claim/release`, and over it the operator's
/// `devices.claim/release`, saved by the daemon (the latest choice for a key). The operator's
/// layer is asked first; within a layer, a device id's choice comes before its `vvvv:pppp`'s,
/// and in the config a key both claimed and released is released.
package struct ScannerSelection: Sendable, Equatable {
    package enum Choice: String, Sendable, Equatable {
        case claim, release
    }

    /// The config file's keys, lowercase.
    package var configClaimed: Set<String>
    package var configReleased: Set<String>
    /// The operator's latest choice per key, lowercase.
    package var operatorChoices: [String: Choice]

    package init(claimed: [String] = [], released: [String] = [], operatorChoices: [String: Choice] = [:]) {
        configClaimed = Set(claimed.map { $0.lowercased() })
        configReleased = Set(released.map { $0.lowercased() })
        self.operatorChoices = operatorChoices
    }

    /// Whether `node` (as device `id`) is read, and why, in the words `devices.candidates` uses.
    package func verdict(_ node: DiscoveredNode, id: String) -> (read: Bool, reason: String) {
        if let chosen = choice(node, id: id) { return (chosen.choice == .claim, chosen.reason) }
        if let vendor = node.vendorId, let maker = ScannerVendors.all.first(where: { $0.id == vendor }) {
            return (true, "made by \(maker.maker)")
        }
        if let name = node.name, name.lowercased().contains("barcode") || name.lowercased().contains("scanner") {
            return (true, "named \(name)")
        }
        return (false, "not a scanner")
    }

    /// A camera's verdict: every video capture node is a camera (it can only be a scanner
    /// here), unless released.
    package func cameraVerdict(_ node: DiscoveredNode, id: String) -> (read: Bool, reason: String) {
        if let chosen = choice(node, id: id), chosen.choice == .release { return (false, chosen.reason) }
        return (true, node.isVideoCapture == true ? "a video capture node" : "a video node, to be asked whether it captures")
    }

    /// The operator's or else the config's choice for `node`, and why; nil when neither names it.
    private func choice(_ node: DiscoveredNode, id: String) -> (choice: Choice, reason: String)? {
        let keys = [id.lowercased()] + (node.usbProduct.map { [$0] } ?? [])
        for key in keys {
            switch operatorChoices[key] {
            case .claim?: return (.claim, "claimed by the operator")
            case .release?: return (.release, "released by the operator")
            case nil: continue
            }
        }
        for key in keys {
            if configReleased.contains(key) { return (.release, "released in the config") }
            if configClaimed.contains(key) { return (.claim, "claimed in the config") }
        }
        return nil
    }

    /// The claims and releases in force, the operator's over the config's, key by key.
    package var overrides: (claimed: [String], released: [String]) {
        var choices: [String: Choice] = [:]
        for key in configClaimed { choices[key] = .claim }
        for key in configReleased { choices[key] = .release }
        choices.merge(operatorChoices) { $1 }
        return (choices.filter { $0.value == .claim }.keys.sorted(), choices.filter { $0.value == .release }.keys.sorted())
    }
}

extension DiscoveredNode {
    /// `vvvv:pppp`, the key a claim of every device of one product uses; nil without ids.
    package var usbProduct: String? {
        guard let vendorId, let productId else { return nil }
        return "\(vendorId.usbID):\(productId.usbID)"
    }
}
