extension Type4Tag {
    /// The NDEF read of a Type 4 tag as a conversation with no I/O: it says which command to
    /// send next, and is told each answer, so the driver does only the exchange and the tests
    /// and the fuzz target can play any tag. SELECT the NDEF application, SELECT and READ
    /// BINARY the capability container, SELECT the NDEF file, READ BINARY its NLEN, then the
    /// message in pieces no longer than the tag's MLe and the reader's limit.
    ///
    /// A tag is held to what it claimed and to the caller's bounds: a message longer than
    /// `maxMessageBytes` is never asked for, an NLEN past the file's size is a lie, and an
    /// answer of another length than asked, or any status but `90 00`, ends the read. So a
    /// read takes at most `6 + maxMessageBytes / 15` commands, whatever the tag says.
    public struct Reader: Sendable {
        /// What to do next.
        public enum Step: Sendable, Hashable {
            /// Send this command APDU and hand its answer to `receive`.
            case send([UInt8])
            /// The NDEF message (empty when the tag holds none).
            case done([UInt8])
            /// The read ended without a message.
            case failed(Failure)
        }

        public enum Failure: Sendable, Hashable, CustomStringConvertible {
            /// The card refused the NDEF application: it is not a Type 4 tag, nothing to report.
            case notType4(status: UInt16)
            /// The tag holds an NDEF file that it does not let anyone read.
            case readProtected
            /// The tag broke the mapping or its own claims.
            case invalid(String)
            /// A longer message than the caller reads.
            case tooLong(Int, limit: Int)

            public var description: String {
                switch self {
                case .notType4(let status): "no NDEF application (status \(Type4Tag.statusHex(status)))"
                case .readProtected: "the NDEF file is not readable without a key"
                case .invalid(let reason): "the Type 4 tag \(reason)"
                case .tooLong(let count, let limit): "the NDEF message has \(count) bytes, more than the \(limit) read"
                }
            }
        }

        private enum Stage: Sendable {
            case selectingApplication, selectingContainer, readingContainer, selectingNDEF, readingLength
            case readingMessage(pieces: [Range<Int>], message: [UInt8])
            case finished
        }

        private let maxMessageBytes: Int
        private let readerLimit: Int
        private var stage = Stage.selectingApplication
        private var container: CapabilityContainer?
        private var asked = 0

        /// - Parameters:
        ///   - maxMessageBytes: the longest message read, whatever the tag says it holds.
        ///   - readerLimit: the most data bytes the reader and the host take in one answer.
        public init(maxMessageBytes: Int, readerLimit: Int = Type4Tag.largestShortLe) {
            self.maxMessageBytes = max(0, min(maxMessageBytes, Type4Tag.largestOffset - Type4Tag.lengthFieldSize))
            self.readerLimit = max(Type4Tag.capabilityContainerHead, min(readerLimit, Type4Tag.largestShortLe))
        }

        /// The first command.
        public var first: Step { .send(Type4Tag.selectApplication) }

        /// The tag's answer to the last command: its data and status word.
        public mutating func receive(data: [UInt8], status: UInt16) -> Step {
            let step = next(data: data, status: status)
            if case .send(let command) = step {
                asked = command[1] == 0xB0 ? Int(command[4]) : 0
            } else {
                stage = .finished
            }
            return step
        }

        private mutating func next(data: [UInt8], status: UInt16) -> Step {
            if case .finished = stage { return .failed(.invalid("was asked past the end of its read")) }
            if case .selectingApplication = stage {
                guard status == 0x9000 else { return .failed(.notType4(status: status)) }
                stage = .selectingContainer
                return .send(Type4Tag.selectFile(Type4Tag.capabilityContainerFile))
            }
            guard status == 0x9000 else {
                return .failed(.invalid("refused \(refusedStep) (status \(Type4Tag.statusHex(status)))"))
            }
            if asked > 0, data.count != asked {
                return .failed(.invalid("answered \(data.count) bytes to a read of \(asked)"))
            }
            switch stage {
            case .selectingApplication, .finished:
                return .failed(.invalid("was asked past the end of its read"))  // handled above
            case .selectingContainer:
                stage = .readingContainer
                return .send(Type4Tag.readBinary(0..<Type4Tag.capabilityContainerHead))
            case .readingContainer:
                let parsed: CapabilityContainer
                do { parsed = try CapabilityContainer(bytes: data) } catch {
                    return .failed(.invalid("has a bad capability container: \(error)"))
                }
                guard parsed.isReadable else { return .failed(.readProtected) }
                container = parsed
                stage = .selectingNDEF
                return .send(Type4Tag.selectFile(parsed.ndefFile))
            case .selectingNDEF:
                stage = .readingLength
                return .send(Type4Tag.readBinary(0..<Type4Tag.lengthFieldSize))
            case .readingLength:
                return startMessage(length: Int(data[0]) << 8 | Int(data[1]))
            case .readingMessage(var pieces, var message):
                message += data
                pieces.removeFirst()
                guard let piece = pieces.first else { return .done(message) }
                stage = .readingMessage(pieces: pieces, message: message)
                return .send(Type4Tag.readBinary(piece))
            }
        }

        private mutating func startMessage(length: Int) -> Step {
            guard let container else { return .failed(.invalid("has no capability container")) }
            guard length <= container.maxNDEFFileSize - Type4Tag.lengthFieldSize else {
                return .failed(
                    .invalid("says its message has \(length) bytes, in a file of \(container.maxNDEFFileSize)"))
            }
            guard length <= maxMessageBytes else { return .failed(.tooLong(length, limit: maxMessageBytes)) }
            let chunk = min(container.maxResponseData, readerLimit)
            let pieces = Type4Tag.chunks(from: Type4Tag.lengthFieldSize, count: length, chunk: chunk)
            guard let piece = pieces.first else { return .done([]) }
            stage = .readingMessage(pieces: pieces, message: [])
            return .send(Type4Tag.readBinary(piece))
        }

        private var refusedStep: String {
            switch stage {
            case .selectingContainer: "the capability container's SELECT"
            case .readingContainer: "the capability container's READ BINARY"
            case .selectingNDEF: "the NDEF file's SELECT"
            case .readingLength: "the NDEF length's READ BINARY"
            default: "a READ BINARY of the message"
            }
        }
    }

    /// A status word as four hex digits, e.g. `6A82`.
    static func statusHex(_ status: UInt16) -> String {
        Hex.encode([UInt8(status >> 8), UInt8(status & 0xFF)])
    }
}
