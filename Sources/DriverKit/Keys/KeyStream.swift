/// A keyboard-wedge device's event stream, decoded: `input_event` bytes in, scans (and what
/// was not a scan) out. The whole of the driver's decoding, without the device: the reader
/// feeds it what it reads, and benchmarks and tools can feed it recordings.
package final class KeyStream {
    package typealias Output = KeystrokeAssembler.Output

    /// An output, and for a scan that looks wrong in the declared layout, a layout it reads
    /// well in (`LayoutCheck`). The scan's text stays as the declared layout made it.
    package struct Decoded: Equatable, Sendable {
        package var output: Output
        package var betterLayout: LayoutGuess?
    }

    package let layout: String
    let settings: KeystrokeAssembler.Settings
    private var splitter = InputEventSplitter()
    private let decoder: KeyDecoder
    private var assembler: KeystrokeAssembler
    private var resyncing = false
    /// The kernel's time of the last key.
    private var lastKeyTime: Duration?
    /// The key events of the burst in progress, for `LayoutCheck`; a burst longer than
    /// `maxKeptKeys` events is not checked.
    private var burst: [KeyPress] = []
    /// False once the burst in progress outgrew `maxKeptKeys` (a key held down, not a label).
    private var burstKept = true
    private static let maxKeptKeys = 1024

    package convenience init(layout: String = "us") throws(KeyboardError) {
        try self.init(layout: layout, settings: KeystrokeAssembler.Settings())
    }

    init(layout: String, settings: KeystrokeAssembler.Settings) throws(KeyboardError) {
        self.layout = layout
        self.settings = settings
        decoder = KeyDecoder(keymap: try XKBKeymap.named(layout))
        assembler = KeystrokeAssembler(settings: settings)
        burst.reserveCapacity(128)
    }

    /// The stream a device's keyboard settings decode: its layout and timing.
    package convenience init(_ spec: KeyboardSpec) throws(KeyboardError) {
        try self.init(layout: spec.layout, settings: spec.timing)
    }

    /// How long without a key ends a burst with no terminator yet.
    package var idleTime: Duration { settings.idle }

    /// The most characters a scan may have.
    package var maxLength: Int { settings.maxLength }

    /// Decodes `bytes`; `keysDown` gives the keys held now, read back after `SYN_DROPPED`.
    package func feed(_ bytes: some Collection<UInt8>, keysDown: () -> [UInt16] = { [] }) -> [Decoded] {
        var outputs: [Decoded] = []
        for event in splitter.feed(bytes) {
            if let output = apply(event, keysDown: keysDown) { outputs.append(output) }
        }
        return outputs
    }

    /// Whether a burst with no terminator is waiting for `idle()`.
    package var isWaiting: Bool { assembler.deadline != nil }

    /// No key came for the idle time: the burst in progress ends.
    package func idle() -> Decoded? {
        guard let lastKeyTime else { return nil }
        return ended(assembler.flush(at: lastKeyTime + settings.idle), keys: burst.count, endsBurst: true)
    }

    /// The device went away: a burst in progress is incomplete, and decoding starts afresh.
    package func reset() -> Decoded? {
        defer {
            splitter = InputEventSplitter()
            decoder.resync(pressed: [])
            resyncing = false
            lastKeyTime = nil
        }
        return ended(assembler.dropped(), keys: burst.count, endsBurst: true)
    }

    private func apply(_ event: InputEvent, keysDown: () -> [UInt16]) -> Decoded? {
        if event.type == InputEvent.synchronization {
            if event.code == InputEvent.dropped {
                // Events up to the next SYN_REPORT are unreliable; the modifiers are read back then.
                resyncing = true
                return ended(assembler.dropped(), keys: burst.count, endsBurst: true)
            }
            if event.code == InputEvent.report, resyncing {
                resyncing = false
                decoder.resync(pressed: keysDown())
            }
            return nil
        }
        guard !resyncing, event.type == InputEvent.key, event.code < 256 else { return nil }
        if event.value != 2 { keep(KeyPress(code: event.code, value: event.value)) }
        guard let output = decoder.key(code: event.code, value: event.value) else { return nil }
        let time = Duration.microseconds(event.microseconds)
        lastKeyTime = time
        switch output {
        case .text(let text): return ended(assembler.character(text, at: time), keys: startOfLastKey, endsBurst: false)
        // The terminator's own press stays, at the start of the next burst, where it types nothing.
        case .terminator: return ended(assembler.terminator(at: time), keys: burst.count - 1, endsBurst: true)
        case .unmapped(let code): return ended(assembler.unmappedKey(code, at: time), keys: startOfLastKey, endsBurst: false)
        }
    }

    /// Where the key just pressed begins in `burst`, with the modifiers pressed for it: when a
    /// pause made it start a new burst, what comes before it is the burst that ended.
    private var startOfLastKey: Int {
        var start = burst.count - 1
        while start > 0, KeyCode.modifiers.contains(burst[start - 1].code), burst[start - 1].value == 1 { start -= 1 }
        return start
    }

    private func keep(_ key: KeyPress) {
        if burst.count == Self.maxKeptKeys {
            burst.removeAll(keepingCapacity: true)
            burstKept = false
        }
        burst.append(key)
    }

    /// `output`, when there is one, ended the burst whose key events are the first `keys` of
    /// `burst`: a scan is checked against other layouts, and those events are let go (also
    /// with no output when the burst `endsBurst`: a stray Enter, a drop). Else the burst goes on.
    private func ended(_ output: Output?, keys: Int, endsBurst: Bool) -> Decoded? {
        guard output != nil || endsBurst else { return nil }
        defer {
            burst.removeFirst(min(keys, burst.count))
            burstKept = true
        }
        guard let output else { return nil }
        var decoded = Decoded(output: output)
        if case .scan(let text, let unmapped) = output, burstKept {
            decoded.betterLayout = LayoutCheck.betterLayout(
                keys: burst.prefix(keys), text: text, unmapped: !unmapped.isEmpty, declared: layout)
        }
        return decoded
    }
}
