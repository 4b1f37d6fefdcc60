import FuzzSupport
import ScanBridgeCodes

/// A Type 4 tag's side of the NDEF read: `Type4Tag.Reader` against any answers. The first byte
/// sets the bounds and whether answers come at the length asked (so the fuzzer spends its
/// time on containers and lengths, not on guessing lengths); each answer is then a status
/// word and its data. Whatever the tag says, the read ends within its command bound, every
/// command is a short APDU within the limits, and a message is no longer than the bound.
enum FuzzType4: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        let settings = input.byte()
        let exactLengths = settings & 0x80 != 0
        let maxMessageBytes = Int(settings & 0x0F) * 64
        let readerLimit = Int(input.byte())
        var reader = Type4Tag.Reader(maxMessageBytes: maxMessageBytes, readerLimit: readerLimit)
        var step = reader.first
        var commands = 0
        while case .send(let command) = step {
            commands += 1
            fuzzCheck(commands <= 6 + maxMessageBytes / 15, "\(commands) commands for a bound of \(maxMessageBytes)")
            fuzzCheck(command.count <= 13, "a command of \(command.count) bytes")
            var asked = 0
            if command[1] == 0xB0 {
                asked = Int(command[4])
                fuzzCheck(asked >= 1 && asked <= max(15, min(readerLimit, 255)), "READ BINARY of \(asked) bytes")
                fuzzCheck(Int(command[2]) << 8 | Int(command[3]) <= 0x7FFF, "an offset past a short READ BINARY's")
            }
            let status = UInt16(input.byte()) << 8 | UInt16(input.byte())
            let data = input.bytes(exactLengths ? asked : Int(input.byte()))
            step = reader.receive(data: data, status: status)
        }
        if case .done(let message) = step {
            fuzzCheck(message.count <= maxMessageBytes, "a message of \(message.count) bytes for a bound of \(maxMessageBytes)")
            _ = NDEFMessage.records(in: message)
        }
    }
}
