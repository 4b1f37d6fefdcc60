import ArgumentParser
import Glibc

/// A new file for a secret, readable by its owner alone: made before the token, so that a path
/// that cannot be written fails before a secret exists that nobody would see.
struct SecretFile {
    let path: String
    private let descriptor: Int32

    init(creating path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ValidationError(
                "cannot create --secret-file \(path): \(String(cString: strerror(errno))) (it must not exist yet)")
        }
        self.path = path
        self.descriptor = descriptor
    }

    func write(_ secret: String) throws {
        defer { close(descriptor) }
        let bytes = Array((secret + "\n").utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw ValidationError("could not write the secret to \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the file when no token was made.
    func discard() {
        close(descriptor)
        unlink(path)
    }
}
