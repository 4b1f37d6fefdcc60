import ScanBridgeCodes
import ScanBridgeTesting
import Testing

/// Type 4 tags: capability containers in and out of the mapping's ranges, the READ BINARY
/// pieces, and `Type4Tag.Reader` against tags that keep to their claims and tags that lie.
@Suite("Type 4 tags")
struct Type4TagTests {
    static func container(
        length: UInt16 = 0x0F, version: UInt8 = 0x20, mle: UInt16 = 0x00FF, mlc: UInt16 = 0x00FF, file: UInt16 = 0xE104,
        size: UInt16 = 0x0100, read: UInt8 = 0x00
    ) -> [UInt8] {
        VirtualCard.type4Container(
            length: length, version: version, mle: mle, mlc: mlc, file: file, fileSize: size, readAccess: read)
    }

    /// The test kit's Type 4 tag, with every command it was sent.
    struct Tag {
        var card: VirtualCard
        var commands: [[UInt8]] = []

        init(container: [UInt8], ndef: [UInt8], answer: @escaping @Sendable ([UInt8]) -> [UInt8]? = { _ in nil }) {
            card = VirtualCard.type4(uid: [0x04, 1, 2, 3, 4, 5, 6], ndef: ndef, container: container, fileSize: ndef.count + 2)
            card.answer = answer
        }

        mutating func respond(_ command: [UInt8]) -> (data: [UInt8], status: UInt16) {
            commands.append(command)
            let answer = card.respond(to: command)
            return (Array(answer.dropLast(2)), UInt16(answer[answer.count - 2]) << 8 | UInt16(answer[answer.count - 1]))
        }
    }

    /// Runs a read to its end; fails the test past the commands any read may take.
    static func read(_ tag: inout Tag, maxMessageBytes: Int = 888, readerLimit: Int = 255) -> Type4Tag.Reader.Step {
        var reader = Type4Tag.Reader(maxMessageBytes: maxMessageBytes, readerLimit: readerLimit)
        var step = reader.first
        while case .send(let command) = step {
            guard tag.commands.count <= 6 + maxMessageBytes / 15 else {
                Issue.record("more commands than any read takes")
                return step
            }
            let (data, status) = tag.respond(command)
            step = reader.receive(data: data, status: status)
        }
        return step
    }

    @Test func containerOfAnNTAG424() throws {
        // NTAG 424 DNA's factory container: CCLEN 23, MLe 256, MLc 255, NDEF file E104 of 256 bytes, then two proprietary TLVs.
        let bytes = Hex.decode("001720010000FF0406E104010000000506E10500808283000000000000")!
        let container = try Type4Tag.CapabilityContainer(bytes: bytes)
        #expect(container.majorVersion == 2 && container.maxResponseData == 0x100 && container.maxCommandData == 0xFF)
        #expect(container.ndefFile == 0xE104 && container.maxNDEFFileSize == 256 && container.isReadable)
    }

    @Test(
        "containers out of the mapping's ranges",
        arguments: [
            (container().prefix(14).map { $0 }, "15 bytes"),
            (container(length: 0x0E), "fewer than 15"),
            (container(version: 0x10), "mapping version 1.0"),
            (container(version: 0x40), "mapping version 4.0"),
            (container(mle: 0x000E), "MLe 14"),
            (container(mlc: 0), "MLc 0"),
            (container(file: 0xE103), "E103 is reserved"),
            (container(file: 0x0000), "0000 is reserved"),
            (container(file: 0xFFFF), "FFFF is reserved"),
            (container(size: 4), "4 bytes is outside"),
            (container(size: 0xFFFF), "65535 bytes is outside"),
            (Array(container().prefix(7)) + [0x06, 0x08] + Array(container().dropFirst(9)), "no NDEF File Control TLV"),
        ])
    func hostileContainers(bytes: [UInt8], reason: String) {
        #expect(throws: CodeError.self) { try Type4Tag.CapabilityContainer(bytes: bytes) }
        do {
            _ = try Type4Tag.CapabilityContainer(bytes: bytes)
        } catch {
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func commandsAreTheMappingsOwn() {
        #expect(Hex.encode(Type4Tag.selectApplication) == "00A4040007D276000085010100")
        #expect(Hex.encode(Type4Tag.selectFile(0xE103)) == "00A4000C02E103")
        #expect(Hex.encode(Type4Tag.readBinary(0x0102..<0x0102 + 0x3B)) == "00B001023B")
    }

    @Test func piecesCoverTheMessageAndNoneIsLongerThanTheChunk() {
        #expect(Type4Tag.chunks(from: 2, count: 0, chunk: 59).isEmpty)
        #expect(Type4Tag.chunks(from: 2, count: 59, chunk: 59) == [2..<61])
        #expect(Type4Tag.chunks(from: 2, count: 130, chunk: 59) == [2..<61, 61..<120, 120..<132])
    }

    @Test func readsTheMessageInPiecesOfTheSmallerOfMLeAndTheReadersLimit() {
        let message = VirtualCard.ndefURI(String(repeating: "x", count: 300))
        for (mle, limit, piece) in [(UInt16(0x3B), 255, 0x3B), (0x00FF, 100, 100), (0x0100, 255, 255)] {
            var tag = Tag(container: Self.container(mle: mle, size: 0x0400), ndef: message)
            #expect(Self.read(&tag, readerLimit: limit) == .done(message))
            let reads = tag.commands.filter { $0[1] == 0xB0 }.dropFirst(2)
            #expect(reads.allSatisfy { Int($0[4]) <= piece } && reads.first.map { Int($0[4]) } == piece)
            #expect(reads.count == (message.count + piece - 1) / piece)
        }
    }

    @Test func anEmptyFileIsAnEmptyMessage() {
        var tag = Tag(container: Self.container(), ndef: [])
        #expect(Self.read(&tag) == .done([]))
    }

    @Test func aCardWithoutTheApplicationIsNotAType4Tag() {
        var tag = Tag(container: Self.container(), ndef: [])
        tag.card.type4 = nil
        #expect(Self.read(&tag) == .failed(.notType4(status: 0x6A81)))
        #expect(tag.commands.count == 1)
    }

    @Test func aProtectedFileIsNotAskedFor() {
        var tag = Tag(container: Self.container(read: 0x80), ndef: [0xD0, 0x00, 0x00])
        #expect(Self.read(&tag) == .failed(.readProtected))
        #expect(!tag.commands.contains(Type4Tag.selectFile(0xE104)))
    }

    @Test func aLengthPastTheFileIsALieAndPastTheBoundIsNotRead() {
        // NLEN 0x0200 in a file of 0x0100 bytes.
        var lying = Tag(container: Self.container(size: 0x0100), ndef: [UInt8](repeating: 0, count: 0x200))
        guard case .failed(.invalid(let reason)) = Self.read(&lying) else {
            Issue.record("a lying NLEN was read")
            return
        }
        #expect(reason.contains("512 bytes"))
        // A true NLEN past the caller's bound: never a READ BINARY of the message.
        var long = Tag(container: Self.container(size: 0x1000), ndef: [UInt8](repeating: 0, count: 900))
        #expect(Self.read(&long) == .failed(.tooLong(900, limit: 888)))
        #expect(long.commands.filter { $0[1] == 0xB0 }.count == 2)
    }

    @Test func answersOfAnotherLengthOrStatusEndTheRead() {
        let message = VirtualCard.ndefURI("example.com")
        let firstPiece: [UInt8] = [0x00, 0xB0, 0x00, 0x02, UInt8(message.count)]
        var short = Tag(container: Self.container(), ndef: message) { $0 == firstPiece ? [0x90, 0x00] : nil }
        #expect(Self.read(&short) == .failed(.invalid("answered 0 bytes to a read of \(message.count)")))
        var long = Tag(container: Self.container(), ndef: message) {
            $0[1] == 0xB0 ? [UInt8](repeating: 0, count: 255) + [0x90, 0x00] : nil
        }
        #expect(Self.read(&long) == .failed(.invalid("answered 255 bytes to a read of 15")))
        var refusing = Tag(container: Self.container(), ndef: message) {
            $0 == [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04] ? [0x69, 0x82] : nil
        }
        #expect(Self.read(&refusing) == .failed(.invalid("refused the NDEF file's SELECT (status 6982)")))
    }

    @Test func theBoundsHoldForAnyClaims() {
        // The largest claims a container can make, a reader limit past a short APDU's: still short APDUs, still bounded.
        let message = [UInt8](repeating: 0x41, count: 888)
        var tag = Tag(container: Self.container(mle: 0xFFFF, mlc: 0xFFFF, size: 0xFFFE), ndef: message)
        #expect(Self.read(&tag, readerLimit: 100_000) == .done(message))
        #expect(tag.commands.allSatisfy { $0.count <= 13 })
        var tiny = Tag(container: Self.container(mle: 0x000F, size: 0x0400), ndef: message)
        #expect(Self.read(&tiny, readerLimit: 1) == .done(message))
        #expect(tiny.commands.count == 5 + (888 + 14) / 15)
    }
}
