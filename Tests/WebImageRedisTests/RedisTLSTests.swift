import Foundation
import NIOCore
import TestImageServer
import Testing
@testable import WebImageRedis

/// `rediss://` against a redis-server whose port speaks TLS only, with the tests' self-signed certificate for
/// 127.0.0.1 (scripts/fixtures/tls.sh).
@Suite(.serialized) struct RedisTLSTests {
    let server: RedisServerProcess
    let certificate: String

    init() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("WebImageTests/Fixtures/tls")
        certificate = fixtures.appendingPathComponent("cert.pem").path
        server = try RedisServerProcess.start(tlsCertificate: certificate,
                                              tlsKey: fixtures.appendingPathComponent("key.pem").path)
    }

    private func client(trusting file: String?) throws -> RESPClient {
        var text = server.url()
        if let file { text += "?cacert=" + file }
        var configuration = try RedisConfiguration(url: text)
        configuration.commandTimeout = .seconds(30)
        configuration.connectTimeout = .seconds(30)
        return RESPClient(configuration: configuration)
    }

    @Test func aTrustedCertificateCarriesCommands() async throws {
        let client = try client(trusting: certificate)
        let value = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        #expect(try await client.set("over-tls", to: .bytes(value), expiresIn: nil, onlyIfAbsent: false))
        #expect(try await client.get("over-tls").map { Data($0.readableBytesView) } == value)
    }

    @Test func anUntrustedCertificateIsRefused() async throws {
        let client = try client(trusting: nil)  // the system's roots do not include a self-signed certificate
        do throws(RedisError) {
            try await client.ping()
            Issue.record("a self-signed certificate was trusted")
        } catch {
            guard case .connectionFailed = error else { throw error }
        }
    }

    @Test func cacertBelongsToRedissOnly() {
        #expect(throws: RedisError.self) { try RedisConfiguration(url: "redis://h/0?cacert=/x.pem") }
        #expect(throws: RedisError.self) { try RedisConfiguration(url: "rediss://h/0?other=1") }
    }
}
