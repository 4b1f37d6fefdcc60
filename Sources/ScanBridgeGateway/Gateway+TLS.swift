import NIOCore
import NIOPosix

#if GatewayTLS
import NIOSSL
import ScanBridgeModel

/// The server side of `http.tls`.
typealias GatewayTLSContext = NIOSSLContext

extension Gateway {
    /// The TLS context of `http.tls`, read off the cooperative pool; nil without TLS.
    func tlsContext() async throws -> GatewayTLSContext? {
        guard let (certificate, key) = settings.tls else { return nil }
        do {
            // A stat and two file reads: on NIO's pool, never the cooperative one.
            return try await NIOThreadPool.singleton.runIfActive {
                if let problem = SecretFile.problem(key, setting: "http.tls.key") {
                    throw GatewayError(description: problem)
                }
                let chain = try NIOSSLCertificate.fromPEMFile(certificate).map {
                    NIOSSLCertificateSource.certificate($0)
                }
                let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
                var configuration = TLSConfiguration.makeServerConfiguration(
                    certificateChain: chain, privateKey: .privateKey(privateKey))
                configuration.minimumTLSVersion = .tlsv12
                // A client that never answers the close of a connection must not hold the
                // daemon's stop (`GatewayConnections.closeAll`).
                configuration.shutdownTimeout = GatewayConnections.closeGrace
                return try NIOSSLContext(configuration: configuration)
            }
        } catch let error as GatewayError {
            throw error
        } catch {
            throw GatewayError(
                description:
                    "the gateway cannot use http.tls.certificate \(certificate) and http.tls.key \(key): \(error)")
        }
    }

    static func addTLS(_ context: GatewayTLSContext, to pipeline: ChannelPipeline.SynchronousOperations) throws {
        try pipeline.addHandler(NIOSSLServerHandler(context: context))
    }
}
#else
/// None in a build without the `GatewayTLS` trait, whose settings refuse `http.tls` (never made).
struct GatewayTLSContext {}

extension Gateway {
    func tlsContext() async throws -> GatewayTLSContext? { nil }

    static func addTLS(_ context: GatewayTLSContext, to pipeline: ChannelPipeline.SynchronousOperations) throws {}
}
#endif
