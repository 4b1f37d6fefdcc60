import CPNG
import Foundation

/// Reads still frames from files: binary PGM (`P5`, what a GREY camera gives) and PNG (any
/// colour type, made grayscale by libpng). A truncated or foreign file is a `FrameError`,
/// never a crash.
package enum FrameFiles {
    /// The largest frame file read whole (a 8192×8192 PGM is 64 MiB).
    static let maxFileBytes = 80 << 20

    package static func read(path: String) throws(FrameError) -> GrayFrame {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            throw .unreadable("cannot read \(path): \(error.localizedDescription)")
        }
        guard data.count <= maxFileBytes else { throw .unreadable("\(path) is over \(maxFileBytes >> 20) MiB") }
        let bytes = [UInt8](data)
        do {
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return try png(bytes) }
            if bytes.starts(with: Array("P5".utf8)) { return try pgm(bytes) }
        } catch {
            throw .unreadable("\(path): \(error)")
        }
        throw .unreadable("\(path) is neither a binary PGM (P5) nor a PNG")
    }

    /// A binary PGM: `P5`, width, height and maxval as decimal numbers separated by
    /// whitespace (and `#` comments), one whitespace byte, then the rows. A 16-bit PGM keeps
    /// each pixel's high byte.
    package static func pgm(_ bytes: [UInt8]) throws(FrameError) -> GrayFrame {
        var index = 2
        var numbers: [Int] = []
        while numbers.count < 3 {
            while index < bytes.count, bytes[index] == UInt8(ascii: "#") || isSpace(bytes[index]) {
                if bytes[index] == UInt8(ascii: "#") {
                    while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                } else {
                    index += 1
                }
            }
            var value = 0
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]), value < 1 << 20 {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            guard index > start else { throw .malformed("a PGM header with \(numbers.count) of its 3 numbers") }
            numbers.append(value)
        }
        guard index < bytes.count, isSpace(bytes[index]) else { throw .malformed("a PGM header not ended by whitespace") }
        index += 1
        let (width, height, maxValue) = (numbers[0], numbers[1], numbers[2])
        guard (1...65535).contains(maxValue) else { throw .malformed("a PGM maxval of \(maxValue)") }
        let sampleBytes = maxValue > 255 ? 2 : 1
        guard width <= GrayFrame.maxSide, height <= GrayFrame.maxSide else {
            throw .malformed("a frame of \(width)×\(height) pixels (each side 1 to \(GrayFrame.maxSide))")
        }
        let needed = width * height * sampleBytes
        guard bytes.count - index >= needed else {
            throw .malformed("a truncated PGM: \(bytes.count - index) of its \(needed) pixel bytes")
        }
        var pixels = Array(bytes[index..<(index + needed)])
        if sampleBytes == 2 { pixels = stride(from: 0, to: needed, by: 2).map { pixels[$0] } }
        if maxValue < 255, maxValue > 0 { pixels = pixels.map { UInt8(min(255, Int($0) * 255 / maxValue)) } }
        return try GrayFrame(width: width, height: height, bytes: pixels)
    }

    /// A PNG, through libpng's simplified API, converted to 8-bit gray.
    package static func png(_ bytes: [UInt8]) throws(FrameError) -> GrayFrame {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let began = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard began != 0 else { throw .malformed("not a readable PNG (\(pngMessage(&image)))") }
        let (width, height) = (Int(image.width), Int(image.height))
        guard (1...GrayFrame.maxSide).contains(width), (1...GrayFrame.maxSide).contains(height) else {
            throw .malformed("a frame of \(width)×\(height) pixels (each side 1 to \(GrayFrame.maxSide))")
        }
        image.format = UInt32(PNG_FORMAT_GRAY)
        var pixels = [UInt8](repeating: 0, count: width * height)
        let finished = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(width), nil) }
        guard finished != 0 else { throw .malformed("a PNG that cannot be decoded (\(pngMessage(&image)))") }
        return try GrayFrame(width: width, height: height, bytes: pixels)
    }

    private static func pngMessage(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { buffer in
            String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
