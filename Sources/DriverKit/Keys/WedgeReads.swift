package import Logging
import ScanBridgeCodes
package import ScanBridgeCore
import ScanBridgeModel

/// What a wedge scanner's decoded keys become, whichever driver read them (`evdev` from an
/// event node, `usb` from a boot keyboard's reports): a `barcode` read per scan, a warning
/// for what looks wrong, and the hint that the scanner is set to another layout, kept for
/// the device. Confined to the device's thread.
package final class WedgeReads {
    /// What the operator should change, when the reads look like another layout's (`LayoutCheck`).
    package private(set) var hint: String?
    private let device: String
    private let driver: String
    private let layout: String
    private let maxLength: Int
    private let events: AsyncStream<DriverEvent>.Continuation
    private let logger: Logger
    /// Reports the device again, with its new `hint`.
    private let hintChanged: (String?) -> Void

    package init(
        device: String, driver: String, layout: String, maxLength: Int, events: AsyncStream<DriverEvent>.Continuation,
        logger: Logger, hintChanged: @escaping (String?) -> Void
    ) {
        self.device = device
        self.driver = driver
        self.layout = layout
        self.maxLength = maxLength
        self.events = events
        self.logger = logger
        self.hintChanged = hintChanged
    }

    package func handle(_ decoded: KeyStream.Decoded?) {
        guard let decoded else { return }
        switch decoded.output {
        case .scan(let text, let unmapped):
            if !unmapped.isEmpty {
                // Which keys they were is part of what was scanned: debug only.
                logger.warning(
                    "\(unmapped.count) key(s) with no character in layout '\(layout)': is the scanner set to another layout?")
                logger.debug("the keys with no character: evdev codes \(unmapped.map(String.init).joined(separator: " "))")
            }
            note(decoded.betterLayout, text: text)
            guard !text.isEmpty else { return }
            events.yield(.read(RawRead(device: device, driver: driver, kind: .barcode, text: text)))
        case .humanTyping(let length):
            logger.debug("\(length) key(s) typed too slowly for a scanner: not a scan")
        case .tooLong(let length):
            logger.warning(
                "dropped a burst of \(length) keys, over the \(maxLength) a scan may have: a key held down, or a keyboard read as a scanner?"
            )
        case .incomplete(let length):
            logger.warning(
                "key events were lost (SYN_DROPPED or an unplug): \(length) key(s) of a scan in progress discarded; scan the label again"
            )
        }
    }

    /// Keeps (or clears) the hint that the scanner is set to another layout, and reports the
    /// device again when it changes, so `devices.list` and `scanbridge doctor` show it. The
    /// read itself goes out as the declared layout decoded it: never silently altered.
    private func note(_ guess: LayoutGuess?, text: String) {
        var hint = self.hint
        if let guess {
            // The warning names the layouts only: the read itself is a customer's data, and
            // goes to the debug log for whoever turns it on.
            logger.warning(
                "a read looks wrong in layout '\(layout)' and right in layout '\(guess.layout)': is the scanner set to \(guess.layout)? Then set layout=\(guess.layout)"
            )
            logger.debug(
                "read \(text.debugDescription) in layout '\(layout)' is \(guess.text.debugDescription) in '\(guess.layout)'")
            hint = "reads look like layout \(guess.layout), not \(layout): set layout=\(guess.layout)"
        } else if GTIN.gtin14(text) != nil {
            hint = nil  // a valid GTIN in the declared layout: the layout is right after all
        }
        guard hint != self.hint else { return }
        self.hint = hint
        hintChanged(hint)
    }
}
