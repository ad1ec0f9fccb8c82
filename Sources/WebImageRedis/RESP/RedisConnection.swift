import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// One connection to Redis, ready for commands: connected, TLS if asked, authenticated and on its database.
/// Any number of commands may be in flight on it at once (pipelining).
final class RedisConnection: Sendable {
    private let channel: any Channel

    var isActive: Bool { channel.isActive }

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Connects and says hello: `HELLO 3` with the credentials, or on a server without `HELLO` (before Redis 6),
    /// `AUTH` and RESP2; then `SELECT` when the database is not 0.
    static func connect(_ configuration: RedisConfiguration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton)
        async throws(RedisError) -> RedisConnection
    {
        let tls: NIOSSLContext?
        do {
            var settings = TLSConfiguration.makeClientConfiguration()
            if let file = configuration.trustedCertificatesFile {
                settings.trustRoots = .file(file)
            }
            tls = configuration.usesTLS ? try NIOSSLContext(configuration: settings) : nil
        } catch {
            throw .connectionFailed("TLS: \(error)")
        }
        let host = configuration.host
        let commandTimeout = configuration.commandTimeout.timeAmount
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(configuration.connectTimeout.timeAmount)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        let name = host.first?.isNumber == true || host.contains(":") ? nil : host
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: name))
                    }
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(RESPDecoder()), RESPChannelHandler(timeout: commandTimeout))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
        } catch {
            throw .connectionFailed("\(configuration.host):\(configuration.port): \(error)")
        }
        let connection = RedisConnection(channel: channel)
        do throws(RedisError) {
            let handshakeTimeout = configuration.connectTimeout.timeAmount
            try await connection.sayHello(configuration, timeout: handshakeTimeout)
            if configuration.database != 0 {
                let reply = try await connection.send(["SELECT", .text(String(configuration.database))], timeout: handshakeTimeout)
                if let message = reply.errorMessage { throw RedisError.authenticationFailed("SELECT \(configuration.database): \(message)") }
            }
            return connection
        } catch {
            channel.close(promise: nil)
            throw error
        }
    }

    /// `HELLO 3` (RESP3 from then on), or on an older server `AUTH` alone (RESP2).
    private func sayHello(_ configuration: RedisConfiguration, timeout: TimeAmount) async throws(RedisError) {
        var hello: [RedisArgument] = ["HELLO", "3"]
        if let password = configuration.password {
            hello += ["AUTH", .text(configuration.user ?? "default"), .text(password)]
        }
        let reply = try await send(hello, timeout: timeout)
        guard let message = reply.errorMessage else { return }
        if Self.isCredentialError(message) { throw .authenticationFailed(message) }
        // An older server: no HELLO, so RESP2, with AUTH on its own.
        guard let password = configuration.password else { return }
        var auth: [RedisArgument] = ["AUTH"]
        if let user = configuration.user { auth.append(.text(user)) }
        auth.append(.text(password))
        if let message = try await send(auth, timeout: timeout).errorMessage { throw .authenticationFailed(message) }
    }

    private static func isCredentialError(_ message: String) -> Bool {
        ["WRONGPASS", "NOAUTH", "NOPERM"].contains { message.hasPrefix($0) }
            || message.contains("invalid password") || message.contains("invalid username-password")
    }

    /// Sends one command and waits for its reply (an error reply is a reply: see ``RESPValue/error(_:)``).
    /// Throws when no reply arrives within the command timeout (see ``RESPChannelHandler``) or the connection
    /// fails.
    nonisolated(nonsending) func send(_ arguments: [RedisArgument], timeout: TimeAmount? = nil) async throws(RedisError) -> RESPValue {
        var bytes = channel.allocator.buffer(capacity: 0)
        RESPCommandEncoding.write(arguments, into: &bytes)
        let reply = channel.eventLoop.makePromise(of: RESPValue.self)
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { reply.fail(($0 as? RedisError) ?? .connectionFailed("\($0)")) }
        channel.writeAndFlush(RESPRequest(bytes: bytes, reply: reply, timeout: timeout), promise: written)
        do {
            return try await reply.futureResult.get()
        } catch let error as RedisError {
            throw error
        } catch {
            throw .connectionFailed("\(error)")
        }
    }
}

extension Duration {
    /// Whole nanoseconds: for NIO's timers, metrics timers and Redis's milliseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// The same span for NIO's timers.
    var timeAmount: TimeAmount { .nanoseconds(nanoseconds) }
}
