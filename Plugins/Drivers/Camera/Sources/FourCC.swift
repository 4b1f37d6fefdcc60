/// Four-character codes, as V4L2 names pixel formats: `v4l2_fourcc('Y','U','Y','V')`,
/// the first character in the lowest byte.
package enum FourCC {
    package static func code(_ name: String) -> UInt32 {
        name.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The four characters (`YUYV`) for messages; trailing spaces dropped, unprintable bytes `?`.
    package static func name(_ code: UInt32) -> String {
        var characters = (0..<4).map { shift -> Character in
            let byte = UInt8(truncatingIfNeeded: code >> (8 * shift))
            return (0x20...0x7E).contains(byte) ? Character(Unicode.Scalar(byte)) : "?"
        }
        while characters.last == " " { characters.removeLast() }
        return String(characters)
    }
}
