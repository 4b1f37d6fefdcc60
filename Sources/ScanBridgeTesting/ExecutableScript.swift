import Foundation

/// A script a test runs as a program. Tests fork children at any moment; a child forked while
/// this process holds the script open for writing keeps that descriptor until its own exec,
/// close-on-exec or not, and running the script meanwhile fails with ETXTBSY ("Text file
/// busy"). So the script is put in place by `cp`, and no descriptor of it open for writing
/// ever exists in this process.
public enum ExecutableScript {
    public static func write(_ text: String, to path: String) throws {
        let source = path + ".source"
        try Data(text.utf8).write(to: URL(fileURLWithPath: source))
        defer { try? FileManager.default.removeItem(atPath: source) }
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/bin/cp")
        copy.arguments = [source, path]
        try copy.run()
        copy.waitUntilExit()
        guard copy.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }
}
