package import Foundation
import Glibc
import NIOHTTP1
package import ScanBridgeModel

/// A `chromedriver` of its own on a free loopback port, driven over the W3C WebDriver
/// protocol: start it, open sessions, and `stop()` it (or let it go: it is killed when
/// released). Its output goes to `logPath`, for a failing test to show.
///
/// The requests go through NIO's HTTP client, not URLSession: chromedriver writes its
/// header lines without a space after the colon, which is valid HTTP but which
/// FoundationNetworking on Linux refuses ("Failed writing header").
package final class WebDriver: Sendable {
    package let directory: URL
    package let logPath: String
    /// chromedriver's loopback port.
    package let port: Int
    /// chromedriver's process id.
    package var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    private let process: Process

    private init(directory: URL, logPath: String, port: Int, process: Process) {
        self.directory = directory
        self.logPath = logPath
        self.port = port
        self.process = process
    }

    /// Starts chromedriver and waits until it says on which port it listens (it picks a free
    /// one itself, so two test runs never race for a port).
    package static func start(timeout: Duration = .seconds(30)) async throws -> WebDriver {
        if let reason = Chromium.unavailableReason {
            throw WebDriverError(command: "start", error: "unavailable", message: reason)
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("scanbridge-webdriver-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logPath = directory.appendingPathComponent("chromedriver.log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let child = try Process.launch(Chromium.driver, arguments: ["--port=0"], appendingTo: logPath)
        let port = try await waitFor("chromedriver to say its port; its log:\n\(Self.read(logPath))", timeout: timeout) {
            () throws -> Int? in
            guard child.isRunning else {
                throw WebDriverError(
                    command: "start", error: "exited", message: "chromedriver exited:\n\(Self.read(logPath))")
            }
            return Self.port(in: Self.read(logPath))
        }
        return WebDriver(directory: directory, logPath: logPath, port: port, process: child)
    }

    deinit {
        if process.isRunning { Self.kill(process.processIdentifier, browsersOf: directory) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills a chromedriver and its browsers, which a killed chromedriver leaves running.
    /// They are the processes whose command line names the driver's folder, which holds their
    /// profiles.
    static func kill(_ driver: pid_t, browsersOf directory: URL) {
        Glibc.kill(driver, SIGKILL)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid(),
                let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            if String(decoding: commandLine, as: UTF8.self).contains(directory.path) { Glibc.kill(pid, SIGKILL) }
        }
    }

    /// Stops chromedriver (its browsers go with it), waits for it to exit and removes its
    /// folder: asked through its shutdown command, which ends its browsers too, and killed
    /// with them if it lingers.
    package func stop() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        guard process.isRunning else { return }
        _ = try? await LoopbackHTTP.send(.GET, port: port, path: "/shutdown", json: nil)
        do {
            try await waitUntil("chromedriver to shut down", timeout: .seconds(10)) { process.hasEnded }
        } catch {
            Self.kill(process.processIdentifier, browsersOf: directory)
            try await waitUntil("chromedriver to exit on SIGKILL", timeout: .seconds(10)) { process.hasEnded }
        }
    }

    /// Opens a headless Chromium window whose page is `width`×`height` CSS pixels. As root, Chromium
    /// runs only without its sandbox.
    /// `extraArguments` go to Chromium as they are (e.g. `--allow-file-access-from-files`).
    package func newSession(width: Int = 1024, height: Int = 768, extraArguments: [String] = []) async throws
        -> WebDriverSession
    {
        let profile = directory.appendingPathComponent("profile-\(UUID().uuidString.prefix(8))").path
        var arguments: [JSONValue] = [
            "--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", .string("--user-data-dir=\(profile)"), .string("--window-size=\(width),\(height)"),
        ]
        if getuid() == 0 { arguments.append("--no-sandbox") }
        arguments += extraArguments.map { .string($0) }
        let capabilities: JSONValue = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": ["binary": .string(Chromium.browser.path), "args": .array(arguments)],
                ]
            ]
        ]
        let value = try await send("POST", "/session", capabilities, command: "new session")
        guard let id = value["sessionId"]?.stringValue else {
            throw WebDriverError(command: "new session", error: "no session id", message: "\(value)")
        }
        let session = WebDriverSession(driver: self, id: id)
        // The window's size includes what headless Chromium keeps for its frame; the page
        // under test gets exactly the size asked for, as a counter screen or phone would give it.
        try await session.setViewport(width: width, height: height)
        return session
    }

    /// Sends one command and returns its `value`, or throws what chromedriver answered.
    @discardableResult
    package func send(_ method: String, _ path: String, _ body: JSONValue? = nil, command: String) async throws
        -> JSONValue
    {
        let bytes = try body.map { Array(try JSONEncoder().encode($0)) }
        let reply: LoopbackHTTP.Answer
        do {
            // Page loads and scripts have WebDriver timeouts of their own, well within this;
            // it only ends a wait on a chromedriver that stopped answering.
            let port = port
            reply = try await within("chromedriver to answer \(command)", timeout: .seconds(330)) {
                try await LoopbackHTTP.send(HTTPMethod(rawValue: method), port: port, path: path, json: bytes)
            }
        } catch {
            throw WebDriverError(command: command, error: "transport", message: "\(error)")
        }
        let data = Data(reply.body)
        let answer: JSONValue
        do {
            answer = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw WebDriverError(
                command: command, error: "bad answer", message: String(decoding: data.prefix(2000), as: UTF8.self))
        }
        let value = answer["value"] ?? .null
        if let error = value["error"]?.stringValue {
            throw WebDriverError(command: command, error: error, message: value["message"]?.stringValue ?? "")
        }
        return value
    }

    static func port(in log: String) -> Int? {
        let marker = "started successfully on port "
        guard let range = log.range(of: marker) else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }

    static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
