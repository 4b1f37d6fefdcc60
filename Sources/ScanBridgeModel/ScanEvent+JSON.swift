extension ScanEvent {
    /// The event as compact JSON, fields in protocol order; optional fields left out when absent.
    public func json() -> [UInt8] {
        Self.json(seq: seq, body: jsonBody())
    }

    /// The JSON of an event with `seq`, from its `jsonBody()`: what a journal does when it
    /// assigns the number, so the encoding itself can happen before, outside its lock.
    public static func json(seq: UInt64, body: [UInt8]) -> [UInt8] {
        var out = Array(#"{"seq":"#.utf8)
        out.reserveCapacity(body.count + 24)
        out.append(contentsOf: String(seq).utf8)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: body)
        return out
    }

    /// Every member after `seq`, and the closing brace.
    public func jsonBody() -> [UInt8] {
        var out = JSONOutput(capacity: 384)
        out.beginObject()
        out.member("id", id)
        out.member("time", EventTime.format(time))
        out.member("device", device)
        out.member("driver", driver)
        out.member("kind", kind.rawValue)
        out.member("symbology", symbology)
        out.memberIfPresent("aim", aim)
        out.member("text", text)
        out.memberIfPresent("raw", raw)
        out.memberIfPresent("uid", uid)
        out.memberIfPresent("uidDisplay", uidDisplay)
        out.memberIfPresent("atr", atr)
        out.memberIfPresent("cardType", cardType)
        if let ndef {
            out.key("ndef")
            out.beginArray()
            for record in ndef {
                out.beginObject()
                out.member("type", record.type)
                out.member("value", record.value)
                out.endObject()
            }
            out.endArray()
        }
        if let gs1 { out.member("gs1", .object(gs1.mapValues(JSONValue.string))) }
        out.memberIfPresent("gtin", gtin)
        if let embedded { out.member("embedded", embedded) }
        if let sun { out.member("sun", sun.wire) }
        out.key("resolution")
        resolution.write(to: &out)
        out.endObject()
        return Array(out.bytes.dropFirst())
    }
}

extension Resolution {
    /// `handler` (null when none) and `status` first, then the handler's other fields.
    /// Writes the resolution; a lookup method's result is the same object without `handler`.
    public func write(to out: inout JSONOutput, includingHandler: Bool = true) {
        out.beginObject()
        if includingHandler { out.member("handler", handler) }
        out.member("status", status)
        for name in details.keys.sorted() where name != "handler" && name != "status" {
            out.member(name, details[name]!)
        }
        out.endObject()
    }
}
