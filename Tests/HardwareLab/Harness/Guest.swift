import Foundation
import ScanBridgeTesting
import Synchronization

/// What a guest boots with.
struct GuestConfiguration: Sendable {
    /// Devices on QEMU's command line; more can be plugged later over QMP.
    var devices: [LabDevice] = [.usbController]
    /// Starts systemd-udevd in the guest (by-id links, libusb hotplug). Costs a few seconds.
    var udev = true
    var memoryMB = 512
    /// Boot to `ready`: the kernel, the 9p root, udev's first settle.
    var readyTimeout: Duration = .seconds(150)
    /// The longest a guest may live; then it is killed, whatever it was doing.
    var lifetime: Duration = .seconds(540)
    /// Replaces the standard `/lab/job.sh` (harness tests: a guest that never gets ready).
    var job: String?
    /// Boots systemd as PID 1 (`GuestScripts.systemdRoot`), with the job as one of its units
    /// and udev started by systemd whatever `udev` says.
    var systemd = false
}

/// One running QEMU guest with Debian's kernel and the host's `/` as its root, in a fresh
/// run folder of its own. Steps run in it through the results share (`/lab` in the guest):
/// the host drops a script, the guest's job runs it and writes back its output and status.
final class Guest: Sendable {
    let configuration: GuestConfiguration
    let image: GuestImage
    /// The run folder: console.log, qemu.log, qmp.sock, share/.
    let folder: URL
    /// Shared with the guest as `/lab`.
    let share: URL
    let consoleLog: String
    let qmp: QMPClient
    private let process: Process
    private let lock: Mutex<LabLock?>
    private let watchdog: Task<Void, Never>
    private let nextStep = Mutex(1)
    /// Set when the guest was killed, with why; every later step fails with it.
    private let killedBecause = Mutex<String?>(nil)

    private init(
        configuration: GuestConfiguration, image: GuestImage, folder: URL, process: Process, qmp: QMPClient, lock: LabLock,
        watchdog: Task<Void, Never>
    ) {
        self.configuration = configuration
        self.image = image
        self.folder = folder
        share = folder.appendingPathComponent("share")
        consoleLog = folder.appendingPathComponent("console.log").path
        self.process = process
        self.qmp = qmp
        self.lock = Mutex(lock)
        self.watchdog = watchdog
    }

    deinit {
        watchdog.cancel()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Boots a guest and waits until its job says `ready`.
    static func boot(_ configuration: GuestConfiguration = GuestConfiguration()) async throws -> Guest {
        let lock = try await LabLock.guestSlot()
        let image = try await LabLock.withAdmin {
            try LabFolder.cleanUpEarlierRuns()
            return try await GuestImage.prepare()
        }
        let folder = try LabFolder.newRun()
        let share = folder.appendingPathComponent("share")
        let qmpSocket = folder.appendingPathComponent("qmp.sock").path
        guard qmpSocket.utf8.count < 108 else {
            throw LabFailure(
                step: "boot",
                reason: "the QMP socket path \(qmpSocket) is longer than a Unix socket path may be; "
                    + "set SCANBRIDGE_LAB_DIR to a shorter folder")
        }
        try writeShare(share, configuration: configuration)

        let started = ContinuousClock.now
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try LabRequirements.qemuPath())
        process.arguments = qemuArguments(configuration, image: image, folder: folder)
        let qemuLog = folder.appendingPathComponent("qemu.log")
        _ = FileManager.default.createFile(atPath: qemuLog.path, contents: nil)
        let log = try FileHandle(forWritingTo: qemuLog)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        let consoleLog = folder.appendingPathComponent("console.log").path
        do { try process.run() } catch {
            throw LabFailure(step: "boot: start QEMU", reason: "\(error)", consoleLog: consoleLog)
        }
        try? log.close()
        let watchdog = Task { [lifetime = configuration.lifetime] in
            // The guest's whole lifetime, not a wait for an event: cancelled when it shuts down.
            guard (try? await Task.sleep(for: lifetime)) != nil else { return }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        do {
            let qmp = try await QMPClient.connect(path: qmpSocket)
            let guest = Guest(
                configuration: configuration, image: image, folder: folder, process: process, qmp: qmp, lock: lock,
                watchdog: watchdog)
            try await guest.waitUntilReady()
            // Printed once per guest, so the logs of any failure, even an #expect one, can be found.
            print("hardware lab: guest ready in \(ContinuousClock.now - started); its logs are in \(folder.path)")
            return guest
        } catch {
            kill(process.processIdentifier, SIGKILL)
            watchdog.cancel()
            var failure = error as? LabFailure ?? LabFailure(step: "boot", reason: "\(error)")
            failure.consoleLog = consoleLog
            throw failure
        }
    }

    private static func writeShare(_ share: URL, configuration: GuestConfiguration) throws {
        for sub in ["cmd", "out", "state", "bin"] { try LabFolder.makeFolder(share.appendingPathComponent(sub)) }
        let standardJob = configuration.systemd ? GuestScripts.systemdJob : GuestScripts.job(startUdev: configuration.udev)
        var files: [(String, String)] = [
            ("job.sh", configuration.job ?? standardJob),
            ("lab.env", "export SCANBRIDGE_BIN_DIR='\(DaemonHarness.productsDirectory.path)'\n"),
            ("bin/lab_evdev.py", GuestScripts.evdevModule),
            ("bin/evdev-read", GuestScripts.evdevRead),
            ("bin/uinput-scanner", GuestScripts.uinputScanner),
            ("bin/device-state", GuestScripts.deviceState),
        ]
        if configuration.systemd {
            try LabFolder.makeFolder(share.appendingPathComponent("systemd"))
            files += [("systemd/root.sh", GuestScripts.systemdRoot), ("systemd/lab-job.service", GuestScripts.systemdJobUnit)]
        }
        for (name, text) in files {
            let path = share.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
    }

    private static func qemuArguments(_ configuration: GuestConfiguration, image: GuestImage, folder: URL) -> [String] {
        // passthrough keeps the host's owners and modes, which needs root; otherwise files are the user's.
        let model = getuid() == 0 ? "passthrough" : "none"
        func share(_ tag: String, _ path: String, readOnly: Bool) -> [String] {
            [
                "-fsdev",
                "local,id=\(tag),path=\(path),security_model=\(model),multidevs=remap" + (readOnly ? ",readonly=on" : ""),
                "-device", "virtio-9p-pci,fsdev=\(tag),mount_tag=\(tag)",
            ]
        }
        var arguments = [
            // Software emulation only: the lab's hosts have a /dev/kvm that is not hardware
            // virtualisation, and `-enable-kvm` aborts or crawls there.
            "-machine", "q35,accel=tcg", "-cpu", "max", "-smp", "1", "-m", "\(configuration.memoryMB)",
            "-nodefaults", "-display", "none", "-no-reboot",
            "-kernel", image.kernel.path, "-initrd", image.initramfs.path,
            "-append", "console=ttyS0 panic=-1 quiet rdinit=/init",
            "-serial", "file:\(folder.appendingPathComponent("console.log").path)",
            "-qmp", "unix:\(folder.appendingPathComponent("qmp.sock").path),server=on,wait=off",
            "-pidfile", folder.appendingPathComponent("qemu.pid").path,
        ]
        arguments += share("hostroot", "/", readOnly: true)
        arguments += share("extras", image.extras.path, readOnly: true)
        arguments += share("results", folder.appendingPathComponent("share").path, readOnly: false)
        for device in LabDevice.withControllers(configuration.devices) { arguments += device.qemuArguments }
        return arguments
    }

    private func waitUntilReady() async throws {
        let ready = share.appendingPathComponent("state/ready").path
        let failed = share.appendingPathComponent("state/failed").path
        // Boot's caller kills QEMU when this throws.
        try await LabFailure.timing("boot") {
            try await ScanBridgeTesting.waitUntil("the guest to be ready (it was killed)", timeout: configuration.readyTimeout) {
                if FileManager.default.fileExists(atPath: ready) { return true }
                if let reason = try? String(contentsOfFile: failed, encoding: .utf8) {
                    throw LabFailure(
                        step: "boot: \(reason.trimmingCharacters(in: .whitespacesAndNewlines))",
                        reason: "the guest's job failed; its log is \(share.path)/job.log")
                }
                guard process.isRunning else {
                    throw LabFailure(
                        step: "boot",
                        reason: "QEMU exited with status \(process.terminationStatus) before the guest was ready; "
                            + "QEMU's own log: \(tail(folder.appendingPathComponent("qemu.log").path))")
                }
                return false
            }
        }
    }

    /// Runs a shell script in the guest (as root, in `/tmp`, with the host's binaries) and
    /// returns what it printed.
    /// - Throws: `LabFailure` named `step` when it exits non-zero or takes longer than
    ///   `timeout`; a guest that stops answering is killed, with its console log kept.
    @discardableResult
    func run(_ step: String, _ script: String, timeout: Duration = .seconds(60)) async throws -> String {
        if let reason = killedBecause.withLock({ $0 }) {
            throw LabFailure(step: step, reason: "the guest is gone: \(reason)", consoleLog: consoleLog)
        }
        let number = nextStep.withLock { number in
            defer { number += 1 }
            return String(format: "%04d", number)
        }
        let command = share.appendingPathComponent("cmd/\(number)")
        let oneLine = step.replacingOccurrences(of: "\n", with: " ")
        // Written aside and renamed, so the guest never runs half a script.
        try "# \(oneLine)\n\(script)\n".write(toFile: command.path + ".tmp", atomically: false, encoding: .utf8)
        try FileManager.default.moveItem(atPath: command.path + ".tmp", toPath: command.path + ".sh")
        let status = share.appendingPathComponent("out/\(number).status").path
        let hung = {
            self.markKilled("step \"\(step)\" hung and the guest was killed")
            kill(self.process.processIdentifier, SIGKILL)
        }
        return try await LabFailure.timing(step, consoleLog: consoleLog, onTimeout: hung) {
            try await waitFor("the guest's answer (the guest was killed)", timeout: timeout) { () throws -> String? in
                if let text = try? String(contentsOfFile: status, encoding: .utf8),
                    let code = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
                {
                    let output =
                        (try? String(contentsOfFile: share.appendingPathComponent("out/\(number).out").path, encoding: .utf8))
                        ?? ""
                    guard code == 0 else {
                        throw LabFailure(
                            step: step, reason: "exited with status \(code) in the guest:\n\(output.suffix(3000))",
                            consoleLog: consoleLog)
                    }
                    return output
                }
                guard process.isRunning else {
                    markKilled("QEMU exited during step \"\(step)\"")
                    throw LabFailure(
                        step: step, reason: "the guest stopped (QEMU exited with status \(process.terminationStatus))",
                        consoleLog: consoleLog)
                }
                return nil
            }
        }
    }

    /// Waits in the guest until `condition` (a shell test) holds, polling every 0.1 s.
    func waitUntil(_ step: String, _ condition: String, timeout: Duration = .seconds(30)) async throws {
        let seconds = Int(timeout.components.seconds)
        try await run(
            step,
            """
            i=0
            until \(condition); do
                i=$((i + 1)); [ $i -le \(seconds * 10) ] || { echo "still not true after \(seconds) s: \(condition.replacingOccurrences(of: "\"", with: "'"))"; exit 1; }
                nap 0.1
            done
            """, timeout: timeout + .seconds(15))
    }

    /// Loads kernel modules in the guest (its `modprobe`, with the image's modules), e.g.
    /// `modprobe("uinput")` for `/dev/uinput`, or vivid with its parameters.
    func modprobe(_ module: String, _ parameters: String...) async throws {
        try await run("modprobe \(module)", "modprobe \(([module] + parameters).map(shellQuoted).joined(separator: " "))")
    }

    /// Reads a file the guest wrote into `/lab`.
    func sharedFile(_ name: String) -> String? {
        try? String(contentsOfFile: share.appendingPathComponent(name).path, encoding: .utf8)
    }

    var isRunning: Bool { process.isRunning }

    private func markKilled(_ reason: String) {
        killedBecause.withLock { if $0 == nil { $0 = reason } }
    }

    /// Asks the guest's job to stop, so the guest powers itself off; kills it when it does
    /// not within `timeout`. The run folder (console log, job log, results) is kept.
    func shutdown(timeout: Duration = .seconds(20)) async {
        markKilled("the guest was shut down")
        _ = FileManager.default.createFile(atPath: share.appendingPathComponent("cmd/stop").path, contents: nil)
        if (try? await ScanBridgeTesting.waitUntil("the guest to power off", timeout: timeout) { !process.isRunning }) == nil {
            kill(process.processIdentifier, SIGKILL)
            // SIGKILL cannot be refused; the deadline is for a process stuck in the kernel.
            try? await ScanBridgeTesting.waitUntil("QEMU to die of SIGKILL") { !process.isRunning }
        }
        watchdog.cancel()
        await qmp.close()
        lock.withLock { $0 = nil }
    }

    /// Kills QEMU at once, as a power cut would the machine: nothing the guest had not
    /// written out reaches its disks. The run folder is kept.
    func powerCut() async {
        markKilled("the guest's power was cut")
        kill(process.processIdentifier, SIGKILL)
        // SIGKILL cannot be refused; the deadline is for a process stuck in the kernel.
        try? await ScanBridgeTesting.waitUntil("QEMU to die of SIGKILL") { !process.isRunning }
        watchdog.cancel()
        await qmp.close()
        lock.withLock { $0 = nil }
    }

    private func tail(_ path: String) -> String {
        String(((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").suffix(1500))
    }
}
