import FuzzSupport
import ScanBridgeModel

/// The JSON parser every line from a client goes through: any bytes give a value or a
/// ParseError, never a crash.
enum FuzzJSON: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        _ = try? JSONValue(parsing: bytes)
    }
}
