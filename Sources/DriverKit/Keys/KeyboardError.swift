/// What can go wrong with a scanner that types (its layout, its settings), in words an
/// operator can act on.
package enum KeyboardError: Error, Equatable, CustomStringConvertible {
    case unknownLayout(String)
    case badSetting(String)

    package var description: String {
        switch self {
        case .unknownLayout(let layout):
            "no keyboard layout '\(layout)' (an XKB name such as us, de, fr, gb or de(nodeadkeys); see /usr/share/X11/xkb/symbols)"
        case .badSetting(let sentence):
            sentence
        }
    }
}
