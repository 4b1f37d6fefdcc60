/// The symbologies a camera looks for, in the protocol's names; by default every one the
/// decoder reads. A camera that only ever meets a few can name them (`symbologies=qr+ean`):
/// fewer decoders run on every frame, and less can be mistaken for a code.
package struct CameraSymbologies: Sendable, Equatable {
    package private(set) var names: Set<String>

    package static let supported = [
        "qr", "data-matrix", "aztec", "pdf417", "ean-13", "ean-8", "upc-a", "upc-e", "code-128", "gs1-128",
        "code-39", "code-93", "itf", "codabar", "databar",
    ]
    package static let all = CameraSymbologies(checked: Set(supported))

    private init(checked names: Set<String>) {
        self.names = names
    }

    /// From a setting's list (`qr+ean-13+data-matrix`; `ean` stands for EAN/UPC, `code-128`
    /// and `gs1-128` name the same decoder, and `all` every one).
    package init(parsing list: String) throws(FrameError) {
        var names = Set<String>()
        for name in list.split(whereSeparator: { $0 == "+" || $0 == " " }).map(String.init) {
            switch name {
            case "all": names.formUnion(Self.supported)
            case "ean", "upc", "ean-13", "ean-8", "upc-a", "upc-e": names.formUnion(["ean-13", "ean-8", "upc-a", "upc-e"])
            case "code-128", "gs1-128": names.formUnion(["code-128", "gs1-128"])
            case _ where Self.supported.contains(name): names.insert(name)
            default:
                throw .unreadable(
                    "symbology '\(name)' is not decoded from camera frames (known: all, ean, \(Self.supported.joined(separator: ", ")))"
                )
            }
        }
        guard !names.isEmpty else { throw .unreadable("symbologies lists none") }
        self.init(checked: names)
    }

    package func contains(_ name: String) -> Bool { names.contains(name) }

    /// zxing-cpp's `LinearCodes`: every 1D symbology.
    static let linear: UInt32 = 0b1100_0111_0111_1110
    static let dataBar: UInt32 = 1 << 5
    static let itf: UInt32 = 1 << 10
    static let dataBarExpanded: UInt32 = 1 << 6

    /// zxing-cpp's `BarcodeFormat` bits, and the protocol's name for each.
    private static let formats: [(bit: UInt32, name: String)] = [
        (1 << 0, "aztec"), (1 << 1, "codabar"), (1 << 2, "code-39"), (1 << 3, "code-93"), (1 << 4, "code-128"),
        (dataBar, "databar"), (dataBarExpanded, "databar"), (1 << 7, "data-matrix"), (1 << 8, "ean-8"), (1 << 9, "ean-13"),
        (itf, "itf"), (1 << 12, "pdf417"), (1 << 13, "qr"), (1 << 14, "upc-a"), (1 << 15, "upc-e"),
    ]

    /// The formats zxing-cpp is asked to look for.
    var zxingFormats: UInt32 {
        Self.formats.reduce(0) { bits, format in names.contains(format.name) ? bits | format.bit : bits }
    }

    /// The protocol's name for a code zxing-cpp found: a Code 128 with FNC1 first (`]C1`) is
    /// GS1-128. Nil for a format not asked for.
    static func name(zxingFormat: UInt32, aim: String) -> String? {
        guard let name = formats.first(where: { $0.bit == zxingFormat })?.name else { return nil }
        return name == "code-128" && aim == "]C1" ? "gs1-128" : name
    }
}
