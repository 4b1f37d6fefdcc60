public import ScanBridgeModel

extension ScanBridgeClient {
    /// Calls `method` and decodes its result as `T`.
    ///
    /// ```swift
    /// struct DeviceList: Decodable { var devices: [Device] }
    /// let list = try await client.call("devices.list", as: DeviceList.self)
    /// ```
    ///
    /// - Throws: as `call(_:_:)`, and `ClientError` with code `unexpectedResult` when the
    ///   result does not decode.
    public func call<T: Decodable>(_ method: String, _ params: JSONValue = .object([:]), as type: T.Type)
        async throws -> T
    {
        let result = try await call(method, params)
        do {
            return try result.decode(as: T.self)
        } catch {
            throw ClientError.unexpectedResult(method: method, expected: "\(T.self)", detail: "\(error)")
        }
    }

    /// The devices the daemon knows (`devices.list`).
    public func devices() async throws -> [Device] {
        try await call("devices.list", as: DeviceList.self).devices
    }

    /// Injects a read on a mock device (`scan.inject`) and returns the resolved event.
    ///
    /// - Parameters:
    ///   - device: A mock device id (`mock:till-1`).
    ///   - text: The barcode or QR content; required for `barcode` and `qr` mocks.
    ///   - uid: The card UID in hex; required for `nfc` mocks.
    ///   - symbology: The symbology; inferred by the daemon when nil.
    public func inject(device: String, text: String? = nil, uid: String? = nil, symbology: String? = nil)
        async throws -> ScanEvent
    {
        var params: [String: JSONValue] = ["device": .string(device)]
        if let text { params["text"] = .string(text) }
        if let uid { params["uid"] = .string(uid) }
        if let symbology { params["symbology"] = .string(symbology) }
        let result = try await call("scan.inject", .object(params))
        do {
            return try ScanEvent(wire: result["event"] ?? .null)
        } catch {
            throw ClientError.unexpectedResult(method: "scan.inject", expected: "ScanEvent", detail: error.description)
        }
    }

    private struct DeviceList: Decodable { var devices: [Device] }
}
