import ScanBridgeClient
import ScanBridgeModel

extension ConnectionOptions {
    /// Calls `method` and prints its result: as JSON with `json`, else as `describe` words it.
    func callAndPrint(_ method: String, _ params: JSONValue, json: Bool, describe: (JSONValue) -> String) async throws {
        try await withClient { client in
            let result = try await client.call(method, params)
            await Console.out(json ? JSONText.pretty(result) : describe(result))
        }
    }
}
