import Foundation
import ScanBridgeTesting
import Testing

extension LabSuites.USBLane {
    /// The harness itself, when things go wrong: a guest that hangs, leftovers of an
    /// earlier run, paths outside the lab folder.
    @Suite("Lab harness bad input", .serialized, .timeLimit(.minutes(15)))
    struct HarnessBadInputTests {
        /// A guest that never gets ready is killed at its deadline, and the failure names the
        /// step and keeps the console log.
        @Test func hungGuestIsKilledAtItsDeadlineWithItsLogKept() async throws {
            var configuration = GuestConfiguration(devices: [], udev: false)
            // Long enough for the kernel to reach the job on a loaded machine (with the fuzz
            // build beside the lab it took over 12 s), so that the deadline, not the load,
            // decides what the console holds.
            configuration.readyTimeout = .seconds(45)
            configuration.job = "#!/bin/sh\necho 'lab-job: hanging on purpose' >/dev/console\nexec sleep 1000\n"
            do {
                let guest = try await Lab.boot(configuration)
                await guest.shutdown()
                Issue.record("a guest whose job hangs came up")
            } catch let failure as LabFailure {
                #expect(failure.step == "boot")
                // Its own deadline ended it; how long that takes is for a benchmark to measure, not a test.
                #expect(
                    failure.reason.contains("timed out after \(configuration.readyTimeout) waiting for the guest to be ready"),
                    "\(failure.reason)")
                let log = try #require(failure.consoleLog)
                let console = try String(contentsOfFile: log, encoding: .utf8)
                #expect(console.contains("hanging on purpose"), "\(console)")
                #expect(failure.description.contains("guest console log kept at \(log)"))
                let run = URL(fileURLWithPath: log).deletingLastPathComponent()
                let pid = try #require(
                    Int32(
                        String(contentsOf: run.appendingPathComponent("qemu.pid"), encoding: .utf8)
                            .trimmingCharacters(in: .whitespacesAndNewlines)))
                try await waitUntilGone(pid)
            }
        }

        /// A QEMU left running by an earlier test process that died is killed before the next
        /// guest boots, and old run folders are removed, the newest kept for a look; the guest
        /// of a test process that still runs (the other lane's) is left alone.
        @Test func leftoversOfAnEarlierRunAreCleanedUp() async throws {
            // Runs of its own, so the real runs' logs are kept.
            let runs = LabFolder.root.appendingPathComponent("test-runs-\(UUID().uuidString.prefix(6))")
            defer { try? LabFolder.remove(runs) }
            // The names `LabFolder.newRun` gives: a stamp, the test process's pid, a tag.
            let stale = runs.appendingPathComponent("0000-999999999-dead")
            let live = runs.appendingPathComponent("0003-\(getpid())-live")
            let leftover = try await Self.idleQEMU(in: stale)
            defer { if leftover.isRunning { kill(leftover.processIdentifier, SIGKILL) } }
            let running = try await Self.idleQEMU(in: live)
            defer { if running.isRunning { kill(running.processIdentifier, SIGKILL) } }
            // A pid file naming a process that is not that run's QEMU (a reused pid) is left alone.
            let bystander = Process()
            bystander.executableURL = URL(fileURLWithPath: "/bin/sleep")
            bystander.arguments = ["30"]
            try bystander.run()
            defer { if bystander.isRunning { kill(bystander.processIdentifier, SIGKILL) } }
            let innocent = runs.appendingPathComponent("0001-innocent")
            try LabFolder.makeFolder(innocent)
            try "\(bystander.processIdentifier)\n".write(
                to: innocent.appendingPathComponent("qemu.pid"), atomically: false, encoding: .utf8)

            try LabFolder.makeFolder(runs.appendingPathComponent("0002-newest"))

            try LabFolder.cleanUpEarlierRuns(in: runs, keeping: 2)
            try await waitUntilGone(leftover.processIdentifier)
            #expect(bystander.isRunning, "a process that is not the run's QEMU is never killed")
            #expect(running.isRunning, "the guest of a test process that runs is never killed")
            let names = try FileManager.default.contentsOfDirectory(atPath: runs.path).sorted()
            #expect(names == ["0001-innocent", "0002-newest", live.lastPathComponent], "the oldest finished runs go first")
        }

        /// A stand-in for a guest: an idle QEMU whose command line names its run folder.
        private static func idleQEMU(in run: URL) async throws -> Process {
            try LabFolder.makeFolder(run)
            let qemu = Process()
            qemu.executableURL = URL(fileURLWithPath: try LabRequirements.qemuPath())
            qemu.arguments = [
                "-machine", "none", "-nodefaults", "-display", "none", "-pidfile", run.appendingPathComponent("qemu.pid").path,
            ]
            qemu.standardOutput = FileHandle.nullDevice
            qemu.standardError = FileHandle.nullDevice
            try qemu.run()
            let pidFile = run.appendingPathComponent("qemu.pid").path
            try await waitUntil("the idle QEMU's pid file", timeout: .seconds(20)) {
                FileManager.default.fileExists(atPath: pidFile)
            }
            return qemu
        }

        /// Nothing outside the lab folder is ever created or removed, whatever path a bug makes.
        @Test func pathsOutsideTheLabFolderAreRefused() throws {
            let outside = FileManager.default.temporaryDirectory.appendingPathComponent("lab-\(UUID().uuidString.prefix(6))")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: outside) }
            #expect(throws: LabFailure.self) { try LabFolder.remove(outside) }
            #expect(FileManager.default.fileExists(atPath: outside.path))
            let escaping = LabFolder.runs.appendingPathComponent("../../../\(outside.lastPathComponent)")
            #expect(!LabFolder.contains(escaping))
            #expect(throws: LabFailure.self) { try LabFolder.makeFolder(URL(fileURLWithPath: "/tmp/lab-\(UUID().uuidString)")) }
            #expect(!LabFolder.contains(URL(fileURLWithPath: LabFolder.root.path + "-sibling")))
        }

        private func waitUntilGone(_ pid: Int32) async throws {
            // kill(pid, 0) succeeds while the process (or its zombie) exists; a reaped one is gone.
            try await waitUntil("process \(pid) to be gone", timeout: .seconds(20)) { kill(pid, 0) != 0 || isZombie(pid) }
        }

        private func isZombie(_ pid: Int32) -> Bool {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            return status.contains("State:\tZ")
        }
    }
}
