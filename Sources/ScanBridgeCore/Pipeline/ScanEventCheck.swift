public import ScanBridgeModel

/// A look at every event before any handler resolves it, that may add to it what only the
/// daemon can judge (a card's Secure Unique NFC message, `ScanEvent.sun`) and take out what
/// must never reach a client or the journal (the message's encrypted data). It runs whichever
/// handler takes the event, an out-of-process one included.
public protocol ScanEventCheck: Sendable {
    func check(_ event: inout ScanEvent) async
}
