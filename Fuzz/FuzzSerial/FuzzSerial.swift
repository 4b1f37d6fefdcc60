import DriverKit
import FuzzSupport

/// A serial scanner's byte stream: framer settings from the first bytes (suffix, prefix, a
/// small length limit), then the stream in reads of any size and any pause between them.
/// Any bytes give reads and too-long drops, never a crash, and no read is over the limit.
enum FuzzSerial: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        var settings = ByteFramer.Settings()
        let suffixes = ByteFramer.Suffix.allCases
        settings.suffix = suffixes[Int(input.byte()) % suffixes.count]
        settings.prefix = input.bytes(Int(input.byte() % 4))
        settings.maxLength = Int(input.byte()) + 1
        var framer = ByteFramer(settings: settings)
        var time = Duration.zero
        var outputs: [ByteFramer.Output] = []
        for chunk in input.chunks() {
            // The first byte of each read also says how long the line was quiet before it.
            time += .milliseconds(Int(chunk.first ?? 0))
            if let deadline = framer.deadline, deadline < time, let out = framer.flush() { outputs.append(out) }
            outputs += framer.feed(chunk, at: time)
        }
        if let out = framer.flush() { outputs.append(out) }
        for case .read(let read) in outputs {
            fuzzCheck(read.count <= settings.maxLength, "a read of \(read.count) bytes, over \(settings.maxLength)")
        }
    }
}
