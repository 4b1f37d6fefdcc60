public import ScanBridgeModel
import ScanBridgeRPC

/// A notification the daemon sent: a scan, a device change, a gap or an overflow of a
/// subscription (docs/protocol.md "Notifications").
public struct ClientNotification: Sendable, Hashable {
    /// `scan`, `device.added`, `device.removed`, `device.changed`, `events.gap`, `events.overflow`…
    public var method: String
    /// The params object; an empty object when the daemon sent none.
    public var params: JSONValue

    /// A notification as received (or built by a test).
    public init(method: String, params: JSONValue) {
        self.method = method
        self.params = params
    }

    /// The subscription this notification belongs to, when it names one.
    public var subscription: String? { params["subscription"]?.stringValue }

    /// The event of a `scan` notification; nil for any other method.
    ///
    /// - Throws: `ClientError` with code `unexpectedResult` when the event is malformed.
    public func scanEvent() throws(ClientError) -> ScanEvent? {
        guard method == MethodCatalog.scan else { return nil }
        guard let event = params["event"] else {
            throw .unexpectedResult(method: method, expected: "notification", detail: "no \"event\" member")
        }
        do {
            return try ScanEvent(wire: event)
        } catch {
            throw .unexpectedResult(method: method, expected: "ScanEvent", detail: error.description)
        }
    }

    /// The device of a `device.added`, `device.removed` or `device.changed` notification;
    /// nil for any other method.
    ///
    /// - Throws: `ClientError` with code `unexpectedResult` when the device is malformed.
    public func device() throws(ClientError) -> Device? {
        switch method {
        case MethodCatalog.deviceAdded, MethodCatalog.deviceRemoved, MethodCatalog.deviceChanged:
            return try decode("device", as: Device.self)
        default:
            return nil
        }
    }

    /// Decodes the member `key` of `params` as `T`.
    ///
    /// - Throws: `ClientError` with code `unexpectedResult` when it is missing or ill-typed.
    public func decode<T: Decodable>(_ key: String, as type: T.Type) throws(ClientError) -> T {
        guard let member = params[key] else {
            throw .unexpectedResult(method: method, expected: "notification", detail: "no \"\(key)\" member")
        }
        do {
            return try member.decode(as: T.self)
        } catch {
            throw .unexpectedResult(method: method, expected: "\(T.self)", detail: "\(error)")
        }
    }
}
