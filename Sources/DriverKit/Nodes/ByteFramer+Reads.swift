package import Logging
package import ScanBridgeCore
import ScanBridgeModel

extension ByteFramer {
    /// Hands `output` over as the serial and usb drivers do: a read as one `barcode` read of
    /// device `id` (its text when the bytes are UTF-8, else the bytes), a read too long as a
    /// warning that asks whether the suffix setting is the scanner's.
    package func deliver(
        _ output: Output, device id: String, driver: String, events: AsyncStream<DriverEvent>.Continuation, logger: Logger
    ) {
        switch output {
        case .read(let bytes):
            if let text = String(validating: bytes, as: UTF8.self) {
                events.yield(.read(RawRead(device: id, driver: driver, kind: .barcode, text: text)))
            } else {
                events.yield(.read(RawRead(device: id, driver: driver, kind: .barcode, bytes: bytes)))
            }
        case .tooLong(let length):
            logger.warning(
                "dropped \(length) bytes with no suffix, over the \(settings.maxLength) a scan may have: is the suffix setting (\(settings.suffix.rawValue)) the scanner's?"
            )
        }
    }
}
