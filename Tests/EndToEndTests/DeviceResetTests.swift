import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// `devices.reset` through the real daemon and CLI, for what this machine has: no USB device,
/// so every reset is refused, each with its reason. Resets of real USB devices (a vendor-mode
/// scanner, a keyboard, a card reader) are tested in the hardware lab (`USBLabTests`).
@Suite("Device resets end to end", .heavy, .timeLimit(.minutes(5)))
struct DeviceResetTests {
    @Test func aDeviceNotOnUSBOrUnknownIsRefusedWithTheReason() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let client = try await daemon.connect()
        let notUSB = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("devices.reset", ["id": "mock:till-1"])
        }
        #expect(notUSB?.message == "mock:till-1 is not on USB (no device node): there is nothing to reset")
        await expectRPCError(RPCError.notFound) { _ = try await client.call("devices.reset", ["id": "usb:0403:6001:X"]) }
        await expectRPCError(RPCError.invalidParams) { _ = try await client.call("devices.reset", [:]) }
        await client.close()

        let cli = try await run("scanbridge", ["devices", "reset", "mock:till-1", "--socket", daemon.socketPath])
        #expect(cli.status != 0 && cli.err.contains("mock:till-1 is not on USB"), "\(cli.err)")
    }
}
