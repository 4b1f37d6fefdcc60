/// A USB HID boot keyboard's input reports (8 bytes: the modifier keys' bits, a reserved
/// byte, up to six keys down by HID usage) as the `input_event` records the kernel's usbhid
/// makes of them, so that a keyboard read over libusb (the `usb` driver) is decoded by the
/// same `KeyStream` as one read through evdev: the same layouts, timing and checks.
package struct BootKeyboardReports {
    /// The evdev key codes of the modifier bits, bit 0 first: left Ctrl, Shift, Alt, Meta,
    /// then the right ones.
    static let modifierCodes: [UInt16] = [29, 42, 56, 125, 97, 54, 100, 126]

    /// The evdev key code of each HID keyboard usage from 0x04 (`a`) to 0x67 (keypad `=`), as
    /// the kernel maps them (drivers/hid/hid-input.c); the usages a scanner types.
    static let usageCodes: [UInt16] = [
        30, 48, 46, 32, 18, 33, 34, 35, 23, 36, 37, 38, 50, 49, 24, 25,  // a…p
        16, 19, 31, 20, 22, 47, 17, 45, 21, 44,  // q…z
        2, 3, 4, 5, 6, 7, 8, 9, 10, 11,  // 1…9, 0
        28, 1, 14, 15, 57, 12, 13, 26, 27, 43, 43, 39, 40, 41, 51, 52, 53, 58,  // Enter … CapsLock
        59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 87, 88,  // F1…F12
        99, 70, 119, 110, 102, 104, 111, 107, 109, 106, 105, 108, 103,  // PrintScreen … Up
        69, 98, 55, 74, 78, 96, 79, 80, 81, 75, 76, 77, 71, 72, 73, 82, 83,  // NumLock, keypad
        86, 127, 116, 117,  // the key next to left Shift on ISO keyboards, Menu, Power, keypad =
    ]

    private var modifiers: UInt8 = 0
    private var down: [UInt8] = []

    package init() {}

    /// The records one report makes, ended by a `SYN_REPORT`: modifiers first, then the keys
    /// let go, then the keys pressed, in the order usbhid reports them. A short report, or
    /// a report with the keyboard's "too many keys" code (0x01) in any slot, makes none, as
    /// the kernel ignores it; a key in two slots is one key.
    package mutating func events(_ report: some Collection<UInt8>, microseconds: Int64) -> [UInt8] {
        let bytes = Array(report.prefix(8))
        guard bytes.count == 8, !bytes[2...].contains(0x01) else { return [] }
        var keys: [UInt8] = []
        for usage in bytes[2...] where usage >= 0x04 && !keys.contains(usage) { keys.append(usage) }
        var events: [InputEvent] = []
        func key(_ code: UInt16, _ pressed: Bool) {
            events.append(InputEvent(microseconds: microseconds, type: InputEvent.key, code: code, value: pressed ? 1 : 0))
        }
        for bit in 0..<8 where (modifiers ^ bytes[0]) & (1 << bit) != 0 {
            key(Self.modifierCodes[bit], bytes[0] & (1 << bit) != 0)
        }
        for usage in down where !keys.contains(usage) { Self.code(usage).map { key($0, false) } }
        for usage in keys where !down.contains(usage) { Self.code(usage).map { key($0, true) } }
        modifiers = bytes[0]
        down = keys
        guard !events.isEmpty else { return [] }
        events.append(
            InputEvent(microseconds: microseconds, type: InputEvent.synchronization, code: InputEvent.report, value: 0))
        return events.flatMap(\.bytes)
    }

    private static func code(_ usage: UInt8) -> UInt16? {
        let index = Int(usage) - 0x04
        return usageCodes.indices.contains(index) ? usageCodes[index] : nil
    }
}
