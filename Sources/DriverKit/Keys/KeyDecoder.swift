import CXKBCommon

/// Turns one keyboard-wedge scanner's key events into text, as the layout it emulates
/// would: Shift, CapsLock and AltGr through libxkbcommon, plus what scanners send that a
/// layout does not spell:
/// - **Alt + keypad codes** (a scanner's layout-independent mode): the digits typed on the
///   keypad while Alt is held are a character code, given on Alt's release (`Alt+029` is
///   GS). With a leading 0 the code is Windows-1252, without it code page 437, as on
///   Windows, where the mode comes from.
/// - **Ctrl + ]** is GS (U+001D), the GS1 separator, through XKB's Control transformation.
///
/// Not thread-safe: one decoder per device, on that device's reader thread.
final class KeyDecoder {
    enum Output: Equatable {
        case text(String)
        /// Enter, keypad Enter or Tab: the end of a scan.
        case terminator
        /// A key that gives no character in this layout (a function key, an arrow).
        case unmapped(code: UInt16)
    }

    let keymap: XKBKeymap
    private var state: OpaquePointer
    private var altCode: [UInt8]?

    init(keymap: XKBKeymap) {
        self.keymap = keymap
        state = xkb_state_new(keymap.pointer)
        // NumLock on, so keypad keys type digits. This state is the scanner's alone: the
        // host's NumLock does not reach a grabbed device.
        let numLock = xkb_keymap_mod_get_index(keymap.pointer, XKB_MOD_NAME_NUM)
        if numLock != XKB_MOD_INVALID { xkb_state_update_mask(state, 0, 0, 1 << numLock, 0, 0, 0) }
    }

    deinit { xkb_state_unref(state) }

    /// One `EV_KEY` event: `value` 1 press, 0 release, 2 autorepeat (ignored: a scanner
    /// never holds a key, so a repeat is the kernel's, not a character).
    func key(code: UInt16, value: Int32) -> Output? {
        guard value != 2 else { return nil }
        let keycode = xkb_keycode_t(code) + 8  // XKB keycodes are evdev's plus 8
        let pressed = value == 1
        defer { xkb_state_update_key(state, keycode, pressed ? XKB_KEY_DOWN : XKB_KEY_UP) }
        if !pressed {
            if code == KeyCode.leftAlt, let digits = altCode {
                altCode = nil
                return Self.character(altCode: digits).map { .text(String($0)) }
            }
            return nil
        }
        if code == KeyCode.leftAlt {
            altCode = []
            return nil
        }
        if altCode != nil, let digit = KeyCode.keypadDigits[code] {
            altCode?.append(digit)
            return nil
        }
        altCode = nil
        if KeyCode.terminators.contains(code), !isActive(XKB_MOD_NAME_CTRL), !isActive(XKB_MOD_NAME_ALT) {
            return .terminator
        }
        var buffer = [CChar](repeating: 0, count: 16)
        let length = xkb_state_key_get_utf8(state, keycode, &buffer, buffer.count)
        if length > 0, length < buffer.count {
            return .text(String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return KeyCode.modifiers.contains(code) ? nil : .unmapped(code: code)
    }

    /// After `SYN_DROPPED`: the kernel lost events, so the modifiers XKB tracked may be
    /// wrong. Starts from the keys the device says are down (`EVIOCGKEY`), keeping CapsLock.
    func resync(pressed codes: [UInt16]) {
        let locked = xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED)
        xkb_state_unref(state)
        state = xkb_state_new(keymap.pointer)
        xkb_state_update_mask(state, 0, 0, locked, 0, 0, 0)
        for code in codes { xkb_state_update_key(state, xkb_keycode_t(code) + 8, XKB_KEY_DOWN) }
        altCode = codes.contains(KeyCode.leftAlt) ? [] : nil
    }

    private func isActive(_ modifier: String) -> Bool {
        xkb_state_mod_name_is_active(state, modifier, XKB_STATE_MODS_EFFECTIVE) == 1
    }

    /// The character of an Alt code: ASCII below 128; above, Windows-1252 with a leading 0
    /// and code page 437 without.
    static func character(altCode digits: [UInt8]) -> Character? {
        guard !digits.isEmpty, digits.count <= 4 else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1) }
        guard value <= 255 else { return nil }
        if value < 128 { return Character(Unicode.Scalar(UInt8(value))) }
        let table = digits.first == 0 ? Self.windows1252 : Self.codePage437
        return table[table.index(table.startIndex, offsetBy: value - 128)]
    }

    /// 0x80–0xFF of Windows-1252 (its five undefined codes as C1 controls, as browsers do).
    private static let windows1252 = Array(
        "€\u{81}‚ƒ„…†‡ˆ‰Š‹Œ\u{8D}Ž\u{8F}\u{90}‘’“”•–—˜™š›œ\u{9D}žŸ\u{A0}¡¢£¤¥¦§¨©ª«¬\u{AD}®¯°±²³´µ¶·¸¹º»¼½¾¿"
            + "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ")
    /// 0x80–0xFF of code page 437.
    private static let codePage437 = Array(
        "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀"
            + "αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{A0}")
}

/// The evdev keycodes (linux/input-event-codes.h) the decoder treats apart. They name
/// physical positions after US QWERTY, whatever the layout.
enum KeyCode {
    static let enter: UInt16 = 28
    static let keypadEnter: UInt16 = 96
    static let tab: UInt16 = 15
    static let leftAlt: UInt16 = 56
    static let terminators: Set<UInt16> = [enter, keypadEnter, tab]
    /// Shift, Ctrl, Alt, AltGr, CapsLock, Meta: keys that type nothing themselves.
    static let modifiers: Set<UInt16> = [42, 54, 29, 97, 56, 100, 58, 125, 126, 69]
    /// Keypad positions → digit, for Alt codes (they hold whether NumLock is on or not).
    static let keypadDigits: [UInt16: UInt8] = [82: 0, 79: 1, 80: 2, 81: 3, 75: 4, 76: 5, 77: 6, 71: 7, 72: 8, 73: 9]
}
