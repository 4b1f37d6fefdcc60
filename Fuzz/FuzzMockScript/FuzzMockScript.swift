import FuzzSupport
import MockDriver

/// A mock device's script, as a demo or a config names it: any text gives steps or an
/// error naming the line, never a crash.
enum FuzzMockScript: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        _ = try? MockScript(parsing: String(decoding: bytes, as: UTF8.self))
    }
}
