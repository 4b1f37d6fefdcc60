import ScanBridgeModel
import ScanBridgeRPC

extension ServerMetrics.RefusalReason {
    /// The refusal a method's error is, if it is one: a role that does not allow the call, or
    /// a limit it would pass.
    package init?(refusing error: any Error) {
        let code: Int? =
            switch error {
            case let error as RPCError: error.code
            case let error as ScanBridgeError where error.code == .forbidden: RPCError.forbidden
            case let error as ScanBridgeError where error.code == .overloaded: RPCError.overloaded
            default: nil
            }
        switch code {
        case RPCError.forbidden: self = .forbidden
        case RPCError.overloaded: self = .overloaded
        default: return nil
        }
    }
}
