package import Foundation

/// A certificate authority of a test's own and a server certificate it signed, made by
/// openssl in `folder`: for a TLS server the daemon must verify, and another authority whose
/// roots it must refuse.
package struct TestCertificates: Sendable {
    /// The authority's certificate: the root a client trusts.
    package let authority: String
    package let certificate: String
    package let key: String

    /// Makes them; the server certificate names `names` (`DNS:localhost`, `IP:127.0.0.1`).
    package static func make(in folder: URL, label: String, names: [String]) async throws -> TestCertificates {
        let path = { (name: String) in folder.appendingPathComponent("\(label)-\(name)").path }
        let made = TestCertificates(authority: path("ca.pem"), certificate: path("server.pem"), key: path("server.key"))
        let (authorityKey, request, extensions) = (path("ca.key"), path("server.csr"), path("server.ext"))
        try "subjectAltName=\(names.joined(separator: ","))\n".write(toFile: extensions, atomically: true, encoding: .utf8)
        try await openssl(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", authorityKey, "-out", made.authority, "-days", "2",
            "-subj", "/CN=ScanBridge test authority \(label)")
        try await openssl(
            "req", "-newkey", "rsa:2048", "-nodes", "-keyout", made.key, "-out", request, "-subj", "/CN=shop database")
        try await openssl(
            "x509", "-req", "-in", request, "-CA", made.authority, "-CAkey", authorityKey, "-CAcreateserial",
            "-out", made.certificate, "-days", "2", "-extfile", extensions)
        return made
    }

    private static func openssl(_ arguments: String...) async throws {
        let child = try DirectChild(command: ["/usr/bin/openssl"] + arguments)
        let status = try await child.finish(timeout: .seconds(60))
        guard status == 0 else { throw TestPostgres.Unavailable(description: "openssl failed: \(child.errors)") }
    }
}
