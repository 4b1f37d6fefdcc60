extension ScanEvent {
    /// The event as the `reader` role sees it (docs/protocol.md "What each role sees"): a card's
    /// UID masked but for its last two bytes, wherever the event carries it (`uid`, `uidDisplay`,
    /// the `text` of a plain tap, the resolution's `card`, a sentence such as a conflict's
    /// `reason`), and the resolution's `customer` without `email` and `phone`. A reader runs
    /// counter screens, which need to tell cards apart and greet the customer, not to copy a
    /// card or contact its owner.
    public func readerView() -> ScanEvent {
        var event = self
        if let uid {
            if text == uid { event.text = Self.maskedUID(uid) }
            event.uid = Self.maskedUID(uid)
        }
        event.uidDisplay = uidDisplay.map(Self.maskedUID)
        if case .object(var card)? = resolution.details["card"] {
            for key in ["uid", "uidDisplay"] {
                if let text = card[key]?.stringValue { card[key] = .string(Self.maskedUID(text)) }
            }
            event.resolution.details["card"] = .object(card)
        }
        // A handler's sentences (`reason`, `message`) may name the card.
        let spellings = [uidDisplay, uid].compactMap { $0 }.filter { !$0.isEmpty }
        for (key, value) in resolution.details {
            guard case .string(var sentence) = value, spellings.contains(where: { sentence.contains($0) }) else { continue }
            for spelling in spellings { sentence = sentence.replacing(spelling, with: Self.maskedUID(spelling)) }
            event.resolution.details[key] = .string(sentence)
        }
        if case .object(var customer)? = resolution.details["customer"] {
            customer["email"] = nil
            customer["phone"] = nil
            event.resolution.details["customer"] = .object(customer)
        }
        return event
    }

    /// A UID with every byte but the last two written `••`: `04:A1:B2:C3:D4:E5:F6` becomes
    /// `••:••:••:••:••:E5:F6`, `04A1B2C3D4E5F6` becomes `••••••••••E5F6`. Works on the text,
    /// so a UID it cannot parse is masked all the same, and masking twice changes nothing.
    public static func maskedUID(_ uid: String) -> String {
        let kept = 2
        if uid.contains(":") {
            let bytes = uid.split(separator: ":", omittingEmptySubsequences: false)
            return (Array(repeating: "••", count: max(0, bytes.count - kept)) + bytes.suffix(kept).map(String.init))
                .joined(separator: ":")
        }
        let hidden = max(0, uid.count - 2 * kept)
        return String(repeating: "•", count: hidden) + uid.suffix(uid.count - hidden)
    }
}
