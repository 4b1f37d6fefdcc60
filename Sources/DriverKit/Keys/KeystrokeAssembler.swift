/// Groups a keyboard-wedge device's characters into scans by their timing: a scanner types
/// a whole label in a burst, keys a few milliseconds apart, then Enter or Tab; a person types
/// with gaps of a tenth of a second and more. A pure state machine: times are the kernel's
/// event times, passed in; the driver calls `flush(at:)` when `deadline` passes with no key.
package struct KeystrokeAssembler {
    package struct Settings: Equatable, Sendable {
        /// The longest gap between two keys of one scan. A scanner at USB full speed with a
        /// 10 ms polling interval takes about 20 ms a character (press and release in two
        /// reports); people rarely type under 60 ms.
        package var maxGap: Duration = .milliseconds(50)
        /// A burst with no terminator is taken as complete after this long without a key.
        package var idle: Duration = .milliseconds(100)
        /// An unterminated burst shorter than this is a stray keypress, not a scan.
        package var minUnterminatedLength = 4
        /// A burst longer than this is cut (the rest is counted, not kept) and reported.
        package var maxLength = 10_000

        package init() {}
    }

    package enum Output: Equatable, Sendable {
        /// A scan; `unmapped` lists keys that gave no character in the device's layout.
        case scan(String, unmapped: [UInt16])
        /// Keys typed too slowly for a scanner, ended by a terminator or a pause.
        case humanTyping(length: Int)
        /// A burst over `maxLength` characters: dropped, with its length.
        case tooLong(length: Int)
        /// The kernel dropped events (`SYN_DROPPED`) during a burst: what was typed is incomplete.
        case incomplete(length: Int)
    }

    let settings: Settings
    private var text = ""
    private var length = 0
    private var unmapped: [UInt16] = []
    private var slow = false
    private var last: Duration?

    init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// When the burst in progress is complete if no key comes first; nil when there is none.
    var deadline: Duration? {
        guard length > 0, let last else { return nil }
        return last + settings.idle
    }

    /// A key that typed `character`. A pause longer than `idle` since the last key first
    /// ends the burst before it.
    mutating func character(_ character: String, at time: Duration) -> Output? {
        let ended = time - (last ?? time) > settings.idle ? flush(at: time) : nil
        note(time)
        length += 1
        if length <= settings.maxLength { text += character }
        return ended
    }

    /// A key with no character in the layout: part of the burst, reported with the scan.
    mutating func unmappedKey(_ code: UInt16, at time: Duration) -> Output? {
        let ended = time - (last ?? time) > settings.idle ? flush(at: time) : nil
        note(time)
        length += 1
        if unmapped.count < 16 { unmapped.append(code) }
        return ended
    }

    /// Enter, keypad Enter or Tab: the burst is a scan, or typing, or nothing (a stray Enter).
    mutating func terminator(at time: Duration) -> Output? {
        guard length > 0 else {
            last = nil
            return nil
        }
        note(time)
        return finish(terminated: true)
    }

    /// Called when `deadline` has passed with no key: an unterminated burst ends here.
    mutating func flush(at time: Duration) -> Output? {
        guard length > 0 else { return nil }
        return finish(terminated: false)
    }

    /// `SYN_DROPPED`: keys were lost, so the burst in progress cannot be trusted.
    mutating func dropped() -> Output? {
        defer { reset() }
        return length > 0 ? .incomplete(length: length) : nil
    }

    private mutating func note(_ time: Duration) {
        if let last, time - last > settings.maxGap { slow = true }
        last = time
    }

    private mutating func finish(terminated: Bool) -> Output? {
        defer { reset() }
        if length > settings.maxLength { return .tooLong(length: length) }
        if slow { return .humanTyping(length: length) }
        if !terminated, length < settings.minUnterminatedLength { return .humanTyping(length: length) }
        return text.isEmpty && unmapped.isEmpty ? nil : .scan(text, unmapped: unmapped)
    }

    private mutating func reset() {
        text = ""
        length = 0
        unmapped = []
        slow = false
        last = nil
    }
}
