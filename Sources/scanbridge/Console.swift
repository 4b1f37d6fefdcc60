import Dispatch
import ScanBridgeRPC

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
/// no string from a device, a handler or the catalog reaches the terminal with its controls;
/// the only escapes written are a style's colour, where `Colour` allows it.
///
/// A write to a terminal or a pipe blocks while the reader is slow (a paused terminal, a
/// `watch | less`); doing it on the queue keeps that off the cooperative pool, and awaiting
/// each line keeps memory bounded when the reader lags behind the daemon.
enum Console {
    private static let queue = DispatchQueue(label: "scanbridge.console")

    /// Writes `text` and a newline to standard output, in `style`'s colour where allowed.
    static func out(_ text: String, style: Colour.Style = .plain) async {
        await emit(text, to: STDOUT_FILENO, style: style)
    }

    /// Writes `text` and a newline to standard error, in `style`'s colour where allowed.
    static func error(_ text: String, style: Colour.Style = .plain) async {
        await emit(text, to: STDERR_FILENO, style: style)
    }

    /// Writes `text` to standard error as a status line that the next one overwrites: after a
    /// carriage return, with `erasing` blanks first to wipe a longer line shown before, and no
    /// newline. No escape is needed, so it works with NO_COLOR too. For terminals only.
    static func status(_ text: String, erasing: Int) async {
        let wipe = erasing > 0 ? String(repeating: " ", count: erasing) + "\r" : ""
        await emit(text, to: STDERR_FILENO, prefix: "\r" + wipe, terminator: "")
    }

    /// `prefix` and `terminator` are the CLI's own controls, written as they are.
    private static func emit(
        _ text: String, to descriptor: Int32, style: Colour.Style = .plain, prefix: String = "", terminator: String = "\n"
    ) async {
        let shown = Colour.wrap(TerminalText.visible(text, keepingNewlines: true), style, on: descriptor)
        let bytes = Array((prefix + shown + terminator).utf8)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                DescriptorOutput.writeAll(bytes, to: descriptor)
                done.resume()
            }
        }
    }
}
