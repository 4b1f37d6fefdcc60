import ArgumentParser
import Dispatch
import Foundation
import PCSCKit
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge doctor`: whether the NFC reader stack works, from pcscd to the daemon.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the card reader stack: pcscd and its readers, the pn533 kernel modules, the daemon and its devices.",
        discussion: """
            pcscd is reached as every PC/SC program reaches it: $PCSCLITE_CSOCK_NAME, else /run/pcscd/pcscd.comm. \
            The exit status is 1 when something is wrong; each problem is listed with what to do.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the report as JSON ({\"ok\", \"problems\", \"pcscd\", \"kernel\", \"daemon\", \"metrics\"}).")
    var json = false

    /// Where the kernel lists its modules (another file in tests).
    @Option(name: .customLong("proc-modules"), help: .hidden)
    var procModules = "/proc/modules"

    /// PC/SC calls and file reads block: they run here, never on the cooperative pool.
    private static let blockingQueue = DispatchQueue(label: "scanbridge.doctor")

    func run() async throws {
        let path = procModules
        let (probe, kernel) = await withCheckedContinuation { done in
            Self.blockingQueue.async {
                let modules = try? String(contentsOfFile: path, encoding: .utf8)
                done.resume(
                    returning: (
                        PCSCProbe.probe(),
                        DoctorReport.Kernel(path: path, loaded: modules.map(PCSCKernelModules.loaded(inProcModules:)))
                    ))
            }
        }
        let report = DoctorReport(pcscd: probe, kernel: kernel, daemon: await daemon())
        await Console.out(json ? JSONText.pretty(report.json) : report.text)
        if !report.problems.isEmpty { throw ExitCode.failure }
    }

    /// What the daemon says of itself and its devices, or why it says nothing.
    private func daemon() async -> DoctorReport.Daemon {
        var daemon = DoctorReport.Daemon(socketPath: connection.shownSocketPath)
        let client: ScanBridgeClient
        do {
            client = try await ScanBridgeClient.connect(socketPath: connection.socketPath)
        } catch {
            daemon.failure = error.message
            return daemon
        }
        daemon.socketPath = client.socketPath
        do {
            daemon.hello = try await client.call("bridge.hello")
            daemon.devicesJSON = try await client.call("devices.list")["devices"] ?? .array([])
            daemon.devices = try await client.devices()
        } catch {
            daemon.failure = "the daemon on \(client.socketPath) answered with an error: \(error)"
        }
        await client.close()
        return daemon
    }
}
