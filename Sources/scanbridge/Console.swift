import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output and standard error, written in order from one serial queue.
///
/// Every line passes through `TerminalText.visible` here, the one place all output goes, so
/// no string from a device, a handler or the catalog reaches the terminal with its controls.
///
/// A write to a terminal or a pipe blocks while the reader is slow (a paused terminal, a
/// `watch | less`); doing it on the queue keeps that off the cooperative pool, and awaiting
/// each line keeps memory bounded when the reader lags behind the daemon.
enum Console {
    private static let queue = DispatchQueue(label: "scanbridge.console")

    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) async {
        await emit(text, to: STDOUT_FILENO)
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) async {
        await emit(text, to: STDERR_FILENO)
    }

    /// Writes `text` to standard error as a status line that the next one overwrites: after a
    /// carriage return and an erase-line, without a newline. For terminals only.
    static func status(_ text: String) async {
        await emit(text, to: STDERR_FILENO, prefix: "\r\u{1B}[K", terminator: "")
    }

    /// `prefix` and `terminator` are the CLI's own controls, written as they are.
    private static func emit(_ text: String, to descriptor: Int32, prefix: String = "", terminator: String = "\n") async {
        let bytes = Array((prefix + TerminalText.visible(text, keepingNewlines: true) + terminator).utf8)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                writeAll(bytes, to: descriptor)
                done.resume()
            }
        }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    // The reader is gone; there is nobody left to tell.
                    return
                }
            }
        }
    }
}
