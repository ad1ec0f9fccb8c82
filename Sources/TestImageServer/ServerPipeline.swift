import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOSSL

/// One HTTP/1.1 connection or one HTTP/2 stream, as request and response parts.
typealias HTTPConnection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

extension TestImageServer {
    /// The header the gzip route sets to ask the compressor to encode its response; removed before sending.
    static let compressMarker = "X-Test-Compress"

    static func makeSSLContext(_ identity: TLSIdentity, offeringHTTP2: Bool) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMBytes(identity.certificateChainPEM)
            .map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(bytes: identity.privateKeyPEM, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain,
                                                                     privateKey: .privateKey(key))
        configuration.applicationProtocols = offeringHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
        return try NIOSSLContext(configuration: configuration)
    }

    /// TLS (when asked), then HTTP/2 streams or HTTP/1.1, each ending in an async channel handed to `incoming`.
    static func configurePipeline(_ channel: any Channel, sslContext: NIOSSLContext?, http2: Bool,
                                  incoming: AsyncStream<HTTPConnection>.Continuation) -> EventLoopFuture<Void> {
        guard let sslContext else {
            return channel.eventLoop.makeCompletedFuture {
                try configureHTTP1(channel, incoming: incoming)
            }
        }
        do {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        guard http2 else {
            return channel.eventLoop.makeCompletedFuture {
                try configureHTTP1(channel, incoming: incoming)
            }
        }
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { connection in
                connection.configureHTTP2Pipeline(mode: .server, inboundStreamInitializer: { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                        try finish(stream, incoming: incoming)
                    }
                }).map { _ in }
            },
            http1ChannelConfigurator: { connection in
                connection.eventLoop.makeCompletedFuture {
                    try configureHTTP1(connection, incoming: incoming)
                }
            })
    }

    private static func configureHTTP1(_ channel: any Channel,
                                       incoming: AsyncStream<HTTPConnection>.Continuation) throws {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
        try finish(channel, incoming: incoming)
    }

    /// Adds the gzip route's compressor and hands the channel to the server as an async channel.
    private static func finish(_ channel: any Channel, incoming: AsyncStream<HTTPConnection>.Continuation) throws {
        try channel.pipeline.syncOperations.addHandler(
            HTTPResponseCompressor(responseCompressionPredicate: { head, _ in
                guard head.headers.contains(name: compressMarker) else { return .doNotCompress }
                head.headers.remove(name: compressMarker)
                return .compressIfPossible
            }))
        incoming.yield(try HTTPConnection(wrappingChannelSynchronously: channel))
    }
}
