import CZBar
import CameraDriver

/// zbar's image scanner, configured for the wanted symbologies only. One per decoding
/// thread: not thread-safe (hence not Sendable).
package final class ZBarScanner {
    private let scanner: OpaquePointer
    private let symbologies: CameraSymbologies

    init(symbologies: CameraSymbologies) {
        scanner = zbar_image_scanner_create()
        self.symbologies = symbologies
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for type in Self.types(for: symbologies) {
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1)
        }
        // Raw bytes, not zbar's guess between SJIS, Latin-1 and UTF-8: a binary payload
        // stays exact (it travels in the event's `raw`).
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        // Frames are de-duplicated over time by the driver (SightingFilter), not by zbar's cache.
        zbar_image_scanner_enable_cache(scanner, 0)
    }

    deinit { zbar_image_scanner_destroy(scanner) }

    /// zbar's decoders for the symbologies. UPC-A and UPC-E stay off: with EAN-13 on, zbar
    /// reports them as EAN-13 with a leading 0, normalised in `code(type:…)`.
    static func types(for symbologies: CameraSymbologies) -> [zbar_symbol_type_t] {
        var types: [zbar_symbol_type_t] = []
        let table: [(String, zbar_symbol_type_t)] = [
            ("qr", ZBAR_QRCODE), ("ean-13", ZBAR_EAN13), ("upc-a", ZBAR_EAN13), ("upc-e", ZBAR_EAN13),
            ("ean-8", ZBAR_EAN8), ("code-128", ZBAR_CODE128), ("code-39", ZBAR_CODE39), ("code-93", ZBAR_CODE93),
            ("itf", ZBAR_I25), ("codabar", ZBAR_CODABAR), ("databar", ZBAR_DATABAR), ("databar", ZBAR_DATABAR_EXP),
        ]
        for (name, type) in table where symbologies.contains(name) && !types.contains(type) { types.append(type) }
        return types
    }

    /// The codes in a frame whose pixels are packed (`width` bytes a row).
    func scan(packed pixels: [UInt8], width: Int, height: Int) -> [DecodedCode] {
        guard let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        zbar_image_set_format(image, UInt(Self.y800))
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        var codes: [DecodedCode] = []
        pixels.withUnsafeBytes { buffer in
            // Not copied by zbar, and the image is destroyed before the buffer goes.
            zbar_image_set_data(image, buffer.baseAddress, UInt(width * height), nil)
            guard zbar_scan_image(scanner, image) > 0 else { return }
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol {
                let length = Int(zbar_symbol_get_data_length(current))
                let bytes =
                    zbar_symbol_get_data(current).map { data in
                        data.withMemoryRebound(to: UInt8.self, capacity: length) {
                            Array(UnsafeBufferPointer(start: $0, count: length))
                        }
                    } ?? []
                let modifiers = zbar_symbol_get_modifiers(current)
                if let code = Self.code(type: zbar_symbol_get_type(current), bytes: bytes, modifiers: modifiers),
                    symbologies.contains(code.symbology)
                {
                    codes.append(code)
                }
                symbol = zbar_symbol_next(current)
            }
        }
        return codes
    }

    static let y800 = FourCC.code("Y800")

    /// A zbar symbol in the protocol's names, with the AIM identifier zbar does not send
    /// (ISO/IEC 15424): a GS1 modifier makes Code 128 GS1-128 (`]C1`) and QR `]Q3`; an
    /// EAN-13 with a leading 0 is a UPC-A (or an expanded UPC-E) and loses the 0.
    static func code(type: zbar_symbol_type_t, bytes: [UInt8], modifiers: UInt32) -> DecodedCode? {
        let gs1 = modifiers & (1 << ZBAR_MOD_GS1.rawValue) != 0
        let fnc1Second = modifiers & (1 << ZBAR_MOD_AIM.rawValue) != 0
        switch type {
        case ZBAR_QRCODE: return DecodedCode(symbology: "qr", aim: gs1 ? "]Q3" : (fnc1Second ? "]Q5" : "]Q1"), bytes: bytes)
        case ZBAR_EAN13:
            if bytes.count == 13, bytes.first == UInt8(ascii: "0") {
                return DecodedCode(symbology: "upc-a", aim: "]E0", bytes: Array(bytes.dropFirst()))
            }
            return DecodedCode(symbology: "ean-13", aim: "]E0", bytes: bytes)
        case ZBAR_EAN8: return DecodedCode(symbology: "ean-8", aim: "]E4", bytes: bytes)
        case ZBAR_CODE128:
            return gs1
                ? DecodedCode(symbology: "gs1-128", aim: "]C1", bytes: bytes)
                : DecodedCode(symbology: "code-128", aim: "]C0", bytes: bytes)
        case ZBAR_CODE39: return DecodedCode(symbology: "code-39", aim: "]A0", bytes: bytes)
        case ZBAR_CODE93: return DecodedCode(symbology: "code-93", aim: "]G0", bytes: bytes)
        case ZBAR_I25: return DecodedCode(symbology: "itf", aim: "]I0", bytes: bytes)
        case ZBAR_CODABAR: return DecodedCode(symbology: "codabar", aim: "]F0", bytes: bytes)
        case ZBAR_DATABAR, ZBAR_DATABAR_EXP: return DecodedCode(symbology: "databar", aim: "]e0", bytes: bytes)
        default: return nil
        }
    }
}
