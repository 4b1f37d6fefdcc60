package import ScanBridgeCore
import ScanBridgeModel

/// A code found in a frame, as the decoder read it: the symbology in the protocol's names,
/// its AIM identifier, and the content's exact bytes (GS separators as 0x1D).
package struct DecodedCode: Sendable, Hashable {
    package var symbology: String
    package var aim: String
    package var bytes: [UInt8]

    package init(symbology: String, aim: String, bytes: [UInt8]) {
        self.symbology = symbology
        self.aim = aim
        self.bytes = bytes
    }

    /// The content as text when it is UTF-8 (nil for a binary payload).
    package var text: String? { String(validating: bytes, as: UTF8.self) }

    /// The read the pipeline's Normalizer takes: text when it is UTF-8, else the bytes (which
    /// then travel in the event's `raw`); GS1 parsing is the Normalizer's, from `aim`.
    package func rawRead(device: String, driver: String) -> RawRead {
        if let text {
            return RawRead(device: device, driver: driver, kind: .qr, text: text, symbology: symbology, aim: aim)
        }
        return RawRead(device: device, driver: driver, kind: .qr, bytes: bytes, symbology: symbology, aim: aim)
    }
}
