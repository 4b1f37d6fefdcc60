/// NDEF messages (NFC Forum NDEF 1.0): the records of a message, with URI (`U`) and
/// Text (`T`) records decoded to strings. Malformed input ends the parse with the records
/// read so far; it never traps.
public enum NDEFMessage {
    public struct Record: Sendable, Hashable {
        /// The record type name (`U`, `T`, a MIME type…).
        public let type: String
        /// The decoded value: the URI, the text, or the payload as hex for other types.
        public let value: String

        public init(type: String, value: String) {
            self.type = type
            self.value = value
        }
    }

    /// URI identifier codes (NFC Forum URI RTD, table 3), by code.
    static let uriPrefixes: [String] = [
        "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
        "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://", "ftp://",
        "dav://", "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:", "sips:", "tftp:",
        "btspp://", "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://", "file://", "urn:epc:id:",
        "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
    ]

    public static func records(in message: [UInt8]) -> [Record] {
        var records: [Record] = []
        var index = 0
        while index < message.count {
            let header = message[index]
            let shortRecord = header & 0x10 != 0
            let hasIDLength = header & 0x08 != 0
            let tnf = header & 0x07
            var cursor = index + 1
            guard cursor < message.count else { break }
            let typeLength = Int(message[cursor])
            cursor += 1
            let payloadLength: Int
            if shortRecord {
                guard cursor < message.count else { break }
                payloadLength = Int(message[cursor])
                cursor += 1
            } else {
                guard cursor + 4 <= message.count else { break }
                payloadLength = message[cursor..<cursor + 4].reduce(0) { $0 << 8 | Int($1) }
                cursor += 4
            }
            var idLength = 0
            if hasIDLength {
                guard cursor < message.count else { break }
                idLength = Int(message[cursor])
                cursor += 1
            }
            let typeStart = cursor
            let payloadStart = typeStart + typeLength + idLength
            guard payloadLength >= 0, payloadStart + payloadLength <= message.count else { break }
            let type = String(decoding: message[typeStart..<typeStart + typeLength], as: UTF8.self)
            let payload = Array(message[payloadStart..<payloadStart + payloadLength])
            if tnf != 0x00 && tnf != 0x06 {  // empty and unchanged (chunk) records carry nothing to report
                records.append(Record(type: type, value: value(ofType: type, wellKnown: tnf == 0x01, payload: payload)))
            }
            index = payloadStart + payloadLength
            if header & 0x40 != 0 { break }  // ME: the message ends here
        }
        return records
    }

    static func value(ofType type: String, wellKnown: Bool, payload: [UInt8]) -> String {
        switch (wellKnown, type) {
        case (true, "U"): return uri(payload)
        case (true, "T"): return text(payload)
        default: return String(validating: payload, as: UTF8.self) ?? Hex.encode(payload)
        }
    }

    static func uri(_ payload: [UInt8]) -> String {
        guard let code = payload.first else { return "" }
        let prefix = Int(code) < uriPrefixes.count ? uriPrefixes[Int(code)] : ""
        return prefix + String(decoding: payload.dropFirst(), as: UTF8.self)
    }

    /// A Text record: status byte (bit 7 UTF-16, bits 0–5 language length), language, text.
    static func text(_ payload: [UInt8]) -> String {
        guard let status = payload.first else { return "" }
        let body = payload.dropFirst(1 + Int(status & 0x3F))
        guard status & 0x80 != 0 else { return String(decoding: body, as: UTF8.self) }
        var units = stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map {
            UInt16(body[$0]) << 8 | UInt16(body[$0 + 1])
        }
        if units.first == 0xFFFE {
            units = units.dropFirst().map { $0.byteSwapped }
        } else if units.first == 0xFEFF {
            units.removeFirst()
        }
        return String(decoding: units, as: UTF16.self)
    }
}
