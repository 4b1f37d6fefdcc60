#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to a file descriptor: the CLI's output and the daemon's log lines.
public enum DescriptorOutput {
    /// Writes `bytes` whole, across short writes and interrupted calls, in as few write(2)
    /// calls as the descriptor takes, so that lines from several threads do not interleave.
    /// Gives up when the descriptor refuses more (its reader gone): there is nobody left to tell.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
