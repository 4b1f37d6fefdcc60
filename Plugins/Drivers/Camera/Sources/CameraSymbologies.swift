/// The symbologies a camera looks for, in the protocol's names. Each one costs decode time
/// on every frame (and widens what noise can be mistaken for), so the default is the few a
/// counter meets: QR, EAN/UPC and Code 128 (GS1-128 included). Data Matrix, decoded by
/// libdmtx, is opt-in (`symbologies=…,data-matrix`).
package struct CameraSymbologies: Sendable, Equatable {
    package private(set) var names: Set<String>

    package static let supported = [
        "qr", "ean-13", "ean-8", "upc-a", "upc-e", "code-128", "gs1-128",
        "code-39", "code-93", "itf", "codabar", "databar", "data-matrix",
    ]
    package static let `default` = CameraSymbologies(checked: ["qr", "ean-13", "ean-8", "upc-a", "upc-e", "code-128", "gs1-128"])

    private init(checked names: Set<String>) {
        self.names = names
    }

    /// From a setting's list (`qr+ean-13+data-matrix`; `ean` stands for EAN/UPC, and
    /// `code-128` and `gs1-128` name the same decoder).
    package init(parsing list: String) throws(FrameError) {
        var names = Set<String>()
        for name in list.split(whereSeparator: { $0 == "+" || $0 == " " }).map(String.init) {
            switch name {
            case "ean", "upc", "ean-13", "ean-8", "upc-a", "upc-e": names.formUnion(["ean-13", "ean-8", "upc-a", "upc-e"])
            case "code-128", "gs1-128": names.formUnion(["code-128", "gs1-128"])
            case _ where Self.supported.contains(name): names.insert(name)
            default:
                throw .unreadable(
                    "symbology '\(name)' is not decoded from camera frames (known: ean, \(Self.supported.joined(separator: ", ")))"
                )
            }
        }
        guard !names.isEmpty else { throw .unreadable("symbologies lists none") }
        self.init(checked: names)
    }

    package func contains(_ name: String) -> Bool { names.contains(name) }

    /// Whether zbar has anything to do (Data Matrix alone is libdmtx's only).
    var needsZBar: Bool { !names.subtracting(["data-matrix"]).isEmpty }
}
