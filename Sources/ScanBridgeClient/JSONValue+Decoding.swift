import Foundation
import ScanBridgeModel
import ScanBridgeRPC

extension JSONValue {
    /// Decodes this value as `T` by writing it back to JSON text first: results arrive as
    /// `JSONValue`, and the model types only know how to decode from a `Decoder`.
    func decode<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(JSONWriter.bytes(.value(self))))
    }
}
