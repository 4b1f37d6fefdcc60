import Foundation
import Synchronization

/// Another program holding a reader exclusively, as a real second PC/SC client of the stack's
/// pcscd: a Perl one-liner through Chipcard::PCSC (Debian `libpcsc-perl`, which `pcsc-tools`
/// pulls in). A child process rather than this one, because libpcsclite reads
/// `PCSCLITE_CSOCK_NAME` once per process and tests run several stacks.
package final class ExclusiveHold: Sendable {
    private let process: Mutex<Process?>
    package let logPath: String

    static let script = """
        use Chipcard::PCSC; use Chipcard::PCSC::Card;
        my $context = new Chipcard::PCSC() or die "no context: $Chipcard::PCSC::errno\\n";
        my $card = new Chipcard::PCSC::Card($context, $ARGV[0], $Chipcard::PCSC::SCARD_SHARE_EXCLUSIVE)
            or die "no exclusive connection: $Chipcard::PCSC::errno\\n";
        $| = 1; print "held\\n"; sleep 600;
        """

    /// Connects to `reader` (a card must be on it) with SCARD_SHARE_EXCLUSIVE and waits until it holds it.
    init(stack: PCSCStack, reader: String, timeout: Duration = .seconds(20)) async throws {
        logPath = stack.directory.appendingPathComponent("exclusive-\(UUID().uuidString.prefix(6)).log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let child = try Process.launch(
            URL(fileURLWithPath: "/usr/bin/perl"), arguments: ["-e", Self.script, reader],
            environment: ProcessInfo.processInfo.environment.merging(stack.environment) { $1 }, appendingTo: logPath)
        process = Mutex(child)
        do {
            try await waitUntil("a second client to hold \(reader) exclusively; its log: \(log)", timeout: timeout) {
                if log.contains("held") { return true }
                guard child.isRunning else {
                    throw PCSCStack.Unavailable(description: "could not hold \(reader) exclusively: \(log)")
                }
                return false
            }
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Ends the program; pcscd releases its exclusive connection when the client goes.
    package func release() {
        process.withLock { process in
            if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }
}

extension PCSCStack {
    /// A second PC/SC client holding `reader` exclusively until `release()` (or until it is dropped).
    package func holdExclusively(_ reader: String) async throws -> ExclusiveHold {
        try await ExclusiveHold(stack: self, reader: reader)
    }
}
