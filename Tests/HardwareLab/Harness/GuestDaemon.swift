import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization

/// The real `scanbridged`, built on the host, running inside the guest on a socket and
/// database in the guest's own `/run/<name>/`. The guest talks to it with the real
/// `scanbridge` CLI; its log and its watcher's events land in the share, so the host reads
/// them without a round trip and they are kept with the run.
struct GuestDaemon: Sendable {
    let guest: Guest
    let name: String

    var socket: String { "/run/\(name)/scanbridge.sock" }
    /// In the guest; the same file is `share/<name>.log` on the host.
    var log: String { "/lab/\(name).log" }
    var events: String { "\(name)-events.ndjson" }
    /// `scanbridge` in the guest, pointed at this daemon.
    var cli: String { "env SCANBRIDGE_SOCKET=\(socket) \"$SCANBRIDGE_BIN_DIR/scanbridge\"" }

    /// Calls `method` through the socket inside the guest and returns its result.
    func call(_ method: String, _ parameters: String = "{}") async throws -> JSONValue {
        let output = try await guest.run(
            "\(name): call \(method)", "\(cli) call \(method) \(shellQuoted(parameters))")
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(output.utf8))
        } catch {
            throw LabFailure(step: "\(name): call \(method)", reason: "the answer is not JSON: \(output)")
        }
    }

    func devices() async throws -> [JSONValue] {
        try await call("devices.list")["devices"]?.arrayValue ?? []
    }

    /// Waits until `devices.list` shows device `id` in `state` (`nil`: not listed at all),
    /// polled inside the guest by one process (`/lab/bin/device-state`).
    func waitForDevice(_ id: String, state: String?, timeout: Duration = .seconds(30)) async throws {
        let seconds = TestEnvironment.scaled(timeout).components.seconds
        try await guest.run(
            "\(name): device \(id) \(state ?? "not listed")",
            "/lab/bin/device-state \(socket) \(shellQuoted(id)) \(shellQuoted(state ?? "-")) \(seconds)",
            timeout: timeout + .seconds(15))
    }

    /// Every scan event the daemon has published so far, as its watcher printed them.
    func scans() -> [JSONValue] {
        (guest.sharedFile(events) ?? "").split(separator: "\n").compactMap { line in
            // `watch --json` prints each notification's params: a scan's are {"event": …, "subscription": …}.
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)),
                let event = value["event"], event["seq"] != nil
            else { return nil }
            return event
        }
    }

    /// The device of every `device.*` notification the watcher printed so far, in order.
    func deviceNotifications() -> [JSONValue] {
        (guest.sharedFile(events) ?? "").split(separator: "\n").compactMap { line in
            (try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)))?["device"]
        }
    }

    /// Waits until the watcher has seen at least `count` scans, then returns them all.
    func waitForScans(_ count: Int, timeout: Duration = .seconds(30)) async throws -> [JSONValue] {
        try await LabFailure.timing("\(name): wait for \(count) scan event(s)") {
            try await waitFor(
                "\(count) scans; the daemon published \(scans().count), its log: share/\(name).log", timeout: timeout
            ) {
                let seen = scans()
                return seen.count >= count ? seen : nil
            }
        }
    }

    /// Stops the daemon with SIGTERM, and its watcher and helpers with it.
    func stop() async throws {
        try await guest.run(
            "\(name): stop",
            """
            for pid in $(cat /run/\(name)/*.pid 2>/dev/null); do kill $pid 2>/dev/null; done
            i=0; while [ -S \(socket) ] && [ $i -lt 50 ]; do i=$((i + 1)); nap 0.1; done
            """)
    }

    /// Runs `command` (one program and its arguments) in the background until `stop()`;
    /// its output goes to `stdout` (a path in the guest), else with its errors to `share/<name>-<what>.log`.
    func background(_ what: String, _ command: String, stdout: String? = nil) async throws {
        let log = "/lab/\(name)-\(what).log"
        try await guest.run(
            "\(name): start \(what)",
            """
            nohup \(command) >\(stdout ?? log) 2>>\(log) &
            echo $! >/run/\(name)/\(what).pid
            """)
    }

    /// Starts the host's pcscd in the guest, in the foreground (no auto-exit), logging to
    /// `share/<name>-pcscd.log`, and waits until it serves `/run/pcscd/pcscd.comm`, where the
    /// daemon's PC/SC driver looks by default. Its USB readers come and go through libudev,
    /// so the guest needs udev (`GuestConfiguration.udev`, on by default). Its serial reader
    /// configuration is an empty folder: the host's `/etc/reader.conf.d` may list vpcd readers.
    func startPCSCD() async throws {
        try await guest.run("\(name): an empty reader.conf.d for pcscd", "mkdir -p /run/\(name)/reader.conf.d")
        try await background("pcscd", "/usr/sbin/pcscd --foreground --debug --config /run/\(name)/reader.conf.d")
        try await guest.waitUntil("pcscd serves /run/pcscd/pcscd.comm", "[ -S /run/pcscd/pcscd.comm ]")
    }
}

extension Guest {
    /// Starts `scanbridged` in the guest with `arguments` and a watcher that records every
    /// scan from the start of the journal (`--since 0`, so none can be missed). Its database
    /// is `database`, else a new one in its `/run/<name>/`.
    func startDaemon(_ arguments: [String] = [], name: String? = nil, database: String? = nil) async throws -> GuestDaemon {
        let daemon = GuestDaemon(guest: self, name: name ?? "daemon-\(UUID().uuidString.prefix(6).lowercased())")
        let database = database ?? "/run/\(daemon.name)/scanbridge.sqlite"
        let options = (["--socket", daemon.socket, "--database", database] + arguments)
            .map(shellQuoted).joined(separator: " ")
        try await run(
            "\(daemon.name): start scanbridged",
            """
            mkdir -p /run/\(daemon.name)
            nohup "$SCANBRIDGE_BIN_DIR/scanbridged" \(options) >\(daemon.log) 2>&1 &
            echo $! >/run/\(daemon.name)/scanbridged.pid
            i=0
            until [ -S \(daemon.socket) ]; do
                kill -0 $! 2>/dev/null || { echo "scanbridged exited:"; cat \(daemon.log); exit 1; }
                i=$((i + 1)); [ $i -le 300 ] || { echo "no socket after 30 s:"; cat \(daemon.log); exit 1; }
                nap 0.1
            done
            """)
        try await daemon.background("watch", "\(daemon.cli) watch --json --since 0", stdout: "/lab/\(daemon.events)")
        return daemon
    }
}

/// `text` as one single-quoted shell word.
func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
