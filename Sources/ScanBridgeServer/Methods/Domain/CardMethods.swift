import Foundation
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `cards.*`: link NFC cards to wallets, arm a link for the next tap, list, block, unlink.
enum CardMethods {
    static let all: [String: RPCMethod] = [
        "cards.link": { params, connection in
            let uid = try params.uid("uid")
            let wallet = try params.walletAddress("walletAddress")
            let cards = try DomainMethod.services(connection).repositories.cards
            let security = try params.cardSecurity("security") ?? .uid
            switch try await cards.link(
                uid: uid, walletAddress: wallet, cardName: try params.text("cardName"), security: security, at: Date())
            {
            case .linked(let card, let customer), .alreadyLinked(let card, let customer):
                return MethodOutcome(.object([("card", .value(card.wire)), ("customer", .value(customer.wire))]))
            case .conflict:
                throw ScanBridgeError.conflict(
                    "card \(uid.display) is linked to another wallet; unlink it first (cards.unlink) to link it to \(wallet)")
            }
        },
        "cards.arm": { params, connection in
            let domain = try DomainMethod.services(connection)
            let wallet = try params.walletAddress("walletAddress")
            let device = try armedDevice(params, connection)
            let timeout = try params.integer("timeoutMs", in: 100...600_000) ?? 30_000
            let (token, expiresAt) = try domain.arming.arm(
                walletAddress: wallet, cardName: try params.text("cardName"),
                security: try params.cardSecurity("security") ?? .uid, device: device, timeout: .milliseconds(timeout))
            return MethodOutcome(.object([("armed", .string(token)), ("expiresAt", .string(EventTime.format(expiresAt)))]))
        },
        "cards.disarm": { params, connection in
            let token = try params.requiredString("armed")
            guard try DomainMethod.services(connection).arming.disarm(token) else {
                throw ScanBridgeError.notFound("no armed link '\(token)': it was used by a tap, expired, or never made")
            }
            return MethodOutcome(.emptyObject)
        },
        "cards.get": { params, connection in
            let uid = try params.uid("uid")
            guard let card = try await DomainMethod.services(connection).repositories.cards.card(uid: uid) else {
                throw notLinked(uid.display)
            }
            return MethodOutcome(.object([("card", .value(card.wire))]))
        },
        "cards.list": { params, connection in
            let wallet = try params.has("walletAddress") ? params.walletAddress("walletAddress") : nil
            let cards = try await DomainMethod.services(connection).repositories.cards.cards(walletAddress: wallet)
            return MethodOutcome(DomainMethod.wires("cards", cards.map(\.wire)))
        },
        "cards.setStatus": { params, connection in
            let uid = try params.uid("uid")
            guard let status = try params.cardStatus("status") else {
                throw ScanBridgeError.invalidParams("status is required: active, inactive or blocked", field: "status")
            }
            guard let card = try await DomainMethod.services(connection).repositories.cards.setStatus(uid: uid, status: status)
            else {
                throw notLinked(uid.display)
            }
            return MethodOutcome(.object([("card", .value(card.wire))]))
        },
        "cards.unlink": { params, connection in
            let uid = try params.uid("uid")
            guard try await DomainMethod.services(connection).repositories.cards.unlink(uid: uid) else {
                throw notLinked(uid.display)
            }
            return MethodOutcome(.emptyObject)
        },
    ]

    /// The reader a `cards.arm` waits on. Without `device`, any reader's next tap of an
    /// unknown card would link it: with several readers attached, a customer tapping at
    /// another counter would get the wallet, so the caller must say which one.
    private static func armedDevice(_ params: Params, _ connection: Connection) throws -> String? {
        let registry = connection.services.bridge.registry
        guard let device = try params.text("device", maxLength: 256) else {
            let readers = registry.devices.filter { $0.kind == .nfc && $0.state != .gone }.map(\.id)
            guard readers.count <= 1 else {
                let attached = readers.joined(separator: ", ")
                throw ScanBridgeError.invalidParams(
                    "device is required: \(readers.count) NFC readers are attached (\(attached)); "
                        + "name the one the card will be tapped on",
                    field: "device")
            }
            return nil
        }
        guard let known = registry.device(device) else {
            throw ScanBridgeError.notFound("no device '\(device)'; devices.list shows the attached ones")
        }
        guard known.kind == .nfc else {
            throw ScanBridgeError.invalidParams(
                "\(device) is a \(known.kind.rawValue) device, not an NFC reader", field: "device")
        }
        return device
    }

    private static func notLinked(_ uid: String) -> ScanBridgeError {
        .notFound("card \(uid) is not linked to any wallet; link it with cards.link or cards.arm")
    }
}
