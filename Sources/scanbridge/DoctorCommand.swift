import ArgumentParser
import Dispatch
import Foundation
import PCSCKit
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC

/// `scanbridge doctor`: whether what the daemon's drivers need is in place, from the daemon
/// down to pcscd, udev rules, groups, the database and the service.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the daemon and what its drivers need: pcscd and readers, udev rules and groups, the database.",
        discussion: """
            The daemon's bridge.hello says which drivers run, and only what they need is checked: \
            pcscd and the pn533 kernel modules for pcsc; the udev rules, the daemon's group \
            scanbridge-devices, scanners left without a kernel driver and the candidates not read for \
            evdev, hidpos and serial; the group video for v4l2. Then your role, the database the \
            daemon has open (its mode and the free disk beside it), the journal and the service's \
            state under systemd (never a problem). pcscd is reached as every PC/SC program reaches \
            it: $PCSCLITE_CSOCK_NAME, else /run/pcscd/pcscd.comm. \
            The exit status is 1 when something is wrong; each problem is listed with what to do.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Flag(
        help: """
            Print the report as JSON ({"ok", "problems", "role", "daemon", "pcscd", "kernel", "scanners", \
            "cameras", "database", "service", "metrics"}; a part not checked is null).
            """)
    var json = false

    @Option(
        help: ArgumentHelp(
            "The daemon's database, when the doctor cannot see which file it has open (another user's daemon).",
            valueName: "path"))
    var database: String?

    /// Where the kernel lists its modules (another file in tests).
    @Option(name: .customLong("proc-modules"), help: .hidden)
    var procModules = "/proc/modules"

    /// Where sysfs lists USB devices (another folder in tests).
    @Option(name: .customLong("usb-devices"), help: .hidden)
    var usbDevices = "/sys/bus/usb/devices"

    /// Where udev rules are looked for (another folder in tests; repeatable).
    @Option(name: .customLong("udev-rules"), help: .hidden)
    var udevRuleFolders: [String] = DoctorReport.udevRuleFolders

    /// PC/SC calls, file reads and systemctl block: they run here, never on the cooperative pool.
    private static let blockingQueue = DispatchQueue(label: "scanbridge.doctor")

    func run() async throws {
        let daemon = await daemon()
        let drivers = daemon.drivers
        let (modulesPath, usbFolder, ruleFolders, databasePath) = (procModules, usbDevices, udevRuleFolders, database)
        var report = await withCheckedContinuation { (done: CheckedContinuation<DoctorReport, Never>) in
            Self.blockingQueue.async {
                let process = DaemonProcess.serving(daemon.socketPath)
                var report = DoctorReport(daemon: daemon, process: process, service: DoctorReport.serviceState())
                if drivers.contains("pcsc") {
                    let modules = try? String(contentsOfFile: modulesPath, encoding: .utf8)
                    report.pcscd = PCSCProbe.probe()
                    report.kernel = DoctorReport.Kernel(
                        path: modulesPath, loaded: modules.map(PCSCKernelModules.loaded(inProcModules:)))
                }
                if !drivers.isDisjoint(with: DoctorReport.scannerDrivers) {
                    report.scanners = DoctorReport.scanners(ruleFolders: ruleFolders, usbFolder: usbFolder)
                }
                if let path = databasePath ?? process?.database {
                    report.database = DoctorReport.database(at: path)
                }
                done.resume(returning: report)
            }
        }
        if report.scanners != nil {
            let (notRead, failure) = await candidatesNotRead()
            report.scanners?.candidatesNotRead = notRead
            report.scanners?.candidatesFailure = failure
        }
        let problems = report.problems
        if json {
            await Console.out(JSONText.pretty(report.json))
        } else {
            await Console.out(report.body + "\n")
            await Console.out(report.verdict, style: problems.isEmpty ? .success : .failure)
        }
        if !problems.isEmpty { throw ExitStatus.negative }
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

    /// The discovered nodes no driver reads, or why they could not be listed (it takes the admin role).
    private func candidatesNotRead() async -> ([JSONValue]?, String?) {
        do {
            let answer = try await ScanBridgeClient.connect(socketPath: connection.socketPath).withClosing {
                try await $0.call("devices.candidates")
            }
            let candidates = answer["candidates"]?.arrayValue ?? []
            return (candidates.filter { $0["read"]?.boolValue != true }, nil)
        } catch let error as RPCError where error.code == RPCError.forbidden {
            return (nil, "listing them takes the admin role")
        } catch {
            return (nil, "\(error)")
        }
    }
}

extension ScanBridgeClient {
    /// Runs `body` with this client, then closes it, whatever `body` does.
    fileprivate func withClosing<Result>(_ body: (ScanBridgeClient) async throws -> Result) async throws -> Result {
        do {
            let result = try await body(self)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }
}
