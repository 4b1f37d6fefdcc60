extension ScanEvent {
    /// The event as compact JSON, fields in protocol order; optional fields left out when absent.
    public func json() -> [UInt8] {
        var out = JSONOutput(capacity: 384)
        out.beginObject()
        out.member("seq", seq)
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
        out.key("resolution")
        resolution.write(to: &out)
        out.endObject()
        return out.bytes
    }
}

extension Resolution {
    /// `handler` (null when none) and `status` first, then the handler's other fields.
    public func write(to out: inout JSONOutput) {
        out.beginObject()
        out.member("handler", handler)
        out.member("status", status)
        for name in details.keys.sorted() where name != "handler" && name != "status" {
            out.member(name, details[name]!)
        }
        out.endObject()
    }
}
