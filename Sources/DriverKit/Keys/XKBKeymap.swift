import CXKBCommon
import Synchronization

/// A compiled XKB keymap for one keyboard layout (`us`, `de`, `fr`, `gb`, `de(nodeadkeys)`…).
///
/// A keyboard-wedge scanner types positions (evdev keycodes) as the layout it was set up to
/// emulate would, whatever the host's layout. Compiling a keymap takes milliseconds, so each
/// layout is compiled once and shared: keymaps are immutable, and xkbcommon allows reading
/// one from several threads.
final class XKBKeymap: @unchecked Sendable {
    let pointer: OpaquePointer
    let layout: String

    private init(pointer: OpaquePointer, layout: String) {
        self.pointer = pointer
        self.layout = layout
    }

    deinit { xkb_keymap_unref(pointer) }

    private static let compiled = Mutex<[String: XKBKeymap]>([:])

    /// The keymap of `layout`, an XKB layout name with an optional variant in parentheses
    /// (`de`, `de(nodeadkeys)`); compiled the first time it is asked for.
    static func named(_ layout: String) throws(KeyboardError) -> XKBKeymap {
        try compiled.withLock { (keymaps: inout [String: XKBKeymap]) throws(KeyboardError) -> XKBKeymap in
            if let keymap = keymaps[layout] { return keymap }
            let keymap = try compile(layout)
            keymaps[layout] = keymap
            return keymap
        }
    }

    private static func compile(_ layout: String) throws(KeyboardError) -> XKBKeymap {
        let (name, variant) = split(layout)
        guard !name.isEmpty, layout.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "()_-".contains($0)) }) else {
            throw .unknownLayout(layout)
        }
        // No environment names: XKB_DEFAULT_LAYOUT and friends are the desktop's, not the scanner's.
        guard let context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else { throw .unknownLayout(layout) }
        defer { xkb_context_unref(context) }
        xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
        let keymap: OpaquePointer? = "evdev".withCString { rules in
            "pc105".withCString { model in
                name.withCString { layoutName in
                    (variant ?? "").withCString { variantName in
                        var names = xkb_rule_names(
                            rules: rules, model: model, layout: layoutName, variant: variantName, options: nil)
                        return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                    }
                }
            }
        }
        guard let keymap else { throw .unknownLayout(layout) }
        return XKBKeymap(pointer: keymap, layout: layout)
    }

    /// `de(nodeadkeys)` → (`de`, `nodeadkeys`).
    private static func split(_ layout: String) -> (String, String?) {
        guard let open = layout.firstIndex(of: "("), layout.hasSuffix(")") else { return (layout, nil) }
        let variant = layout[layout.index(after: open)..<layout.index(before: layout.endIndex)]
        return (String(layout[..<open]), String(variant))
    }
}
