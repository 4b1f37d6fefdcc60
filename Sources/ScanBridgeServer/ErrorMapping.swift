import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// The one place where errors become JSON-RPC error objects.
enum ErrorMapping {
    static func rpcError(for error: any Error, method: String, logger: Logger) -> RPCError {
        switch error {
        case let error as RPCError:
            return error
        case let error as JournalWriteFailure:
            return rpcError(for: error.error, method: method, logger: logger)
        case let error as ScanBridgeError:
            let code: Int =
                switch error.code {
                case .invalidParams: RPCError.invalidParams
                case .notFound: RPCError.notFound
                case .conflict: RPCError.conflict
                case .forbidden: RPCError.forbidden
                case .unavailable: RPCError.unavailable
                case .overloaded: RPCError.overloaded
                default: RPCError.internalError
                }
            if code == RPCError.internalError {
                logger.error("internal error", metadata: ["rpc.method": "\(method)", "error": "\(error)"])
            }
            return RPCError(code: code, message: error.message, data: error.field.map { ["field": .string($0)] })
        default:
            logger.error("internal error", metadata: ["rpc.method": "\(method)", "error": "\(String(reflecting: error))"])
            return RPCError(
                code: RPCError.internalError,
                message: "internal error in \(method): this is a bug; the daemon log has the details")
        }
    }
}
