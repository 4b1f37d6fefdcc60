import ScanBridgeGateway
import Synchronization

/// Says the daemon is ready once its socket listens and, when the gateway is on, every
/// gateway listener too; `ready` gets the gateway's bound addresses.
final class DaemonReadiness: Sendable {
    private struct State {
        var socket = false
        var gateway: [String]?
        var told = false
    }

    private let state: Mutex<State>
    private let ready: @Sendable ([String]) -> Void

    init(waitingForGateway: Bool, ready: @escaping @Sendable ([String]) -> Void) {
        state = Mutex(State(gateway: waitingForGateway ? nil : []))
        self.ready = ready
    }

    func socketListening() {
        update { $0.socket = true }
    }

    func gatewayListening(on addresses: [String]) {
        update { $0.gateway = addresses }
    }

    private func update(_ change: (inout State) -> Void) {
        let addresses = state.withLock { state -> [String]? in
            change(&state)
            guard state.socket, let gateway = state.gateway, !state.told else { return nil }
            state.told = true
            return gateway
        }
        if let addresses { ready(addresses) }
    }
}
