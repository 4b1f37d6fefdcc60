/// A keyboard-wedge device's event stream, decoded: `input_event` bytes in, scans (and what
/// was not a scan) out. The whole of the driver's decoding, without the device: the reader
/// feeds it what it reads, and benchmarks and tools can feed it recordings.
public final class KeyStream {
    public typealias Output = KeystrokeAssembler.Output

    public let layout: String
    let settings: KeystrokeAssembler.Settings
    private var splitter = InputEventSplitter()
    private let decoder: KeyDecoder
    private var assembler: KeystrokeAssembler
    private var resyncing = false
    /// The kernel's time of the last key.
    private var lastKeyTime: Duration?

    public convenience init(layout: String = "us") throws(EvdevError) {
        try self.init(layout: layout, settings: KeystrokeAssembler.Settings())
    }

    init(layout: String, settings: KeystrokeAssembler.Settings) throws(EvdevError) {
        self.layout = layout
        self.settings = settings
        decoder = KeyDecoder(keymap: try XKBKeymap.named(layout))
        assembler = KeystrokeAssembler(settings: settings)
    }

    /// Decodes `bytes`; `keysDown` gives the keys held now, read back after `SYN_DROPPED`.
    public func feed(_ bytes: some Collection<UInt8>, keysDown: () -> [UInt16] = { [] }) -> [Output] {
        var outputs: [Output] = []
        for event in splitter.feed(bytes) {
            if let output = apply(event, keysDown: keysDown) { outputs.append(output) }
        }
        return outputs
    }

    /// Whether a burst with no terminator is waiting for `idle()`.
    public var isWaiting: Bool { assembler.deadline != nil }

    /// No key came for the idle time: the burst in progress ends.
    public func idle() -> Output? {
        guard let lastKeyTime else { return nil }
        return assembler.flush(at: lastKeyTime + settings.idle)
    }

    /// The device went away: a burst in progress is incomplete, and decoding starts afresh.
    public func reset() -> Output? {
        defer {
            splitter = InputEventSplitter()
            decoder.resync(pressed: [])
            resyncing = false
            lastKeyTime = nil
        }
        return assembler.dropped()
    }

    private func apply(_ event: InputEvent, keysDown: () -> [UInt16]) -> Output? {
        if event.type == InputEvent.synchronization {
            if event.code == InputEvent.dropped {
                // Events up to the next SYN_REPORT are unreliable; the modifiers are read back then.
                resyncing = true
                return assembler.dropped()
            }
            if event.code == InputEvent.report, resyncing {
                resyncing = false
                decoder.resync(pressed: keysDown())
            }
            return nil
        }
        guard !resyncing, event.type == InputEvent.key, event.code < 256,
              let output = decoder.key(code: event.code, value: event.value) else { return nil }
        let time = Duration.microseconds(event.microseconds)
        lastKeyTime = time
        switch output {
        case .text(let text): return assembler.character(text, at: time)
        case .terminator: return assembler.terminator(at: time)
        case .unmapped(let code): return assembler.unmappedKey(code, at: time)
        }
    }
}
