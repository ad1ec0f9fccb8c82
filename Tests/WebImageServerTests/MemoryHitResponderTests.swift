import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import WebImageServer

/// The pipeline handler that answers memory hits, on an embedded channel: what it answers itself (the bytes and
/// headers the router would send), what it hands on, and the order a pipelining client's answers keep.
@Suite struct MemoryHitResponderTests {
    /// A channel with the handler in front of a recorder of what it hands on, and a path whose result is in memory.
    private static func channel(_ harness: ProxyHarness) async throws -> (EmbeddedChannel, hot: String) {
        let hot = harness.plainPath(["w:100"], "photo.jpg")
        // The render, then its first repeat (which writes it to disk): from then on it is a memory hit.
        #expect(await harness.get(hot).status == 200)
        #expect(await harness.get(hot).status == 200)
        let log = AccessLog(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let channel = EmbeddedChannel(handler: MemoryHitResponder(proxy: harness.proxy, accessLog: log,
                                                                  serverName: "webimage"))
        return (channel, hot)
    }

    private static func request(_ path: String, method: HTTPRequest.Method = .get, _ fields: HTTPFields = [:])
        -> HTTPRequestPart
    {
        .head(HTTPRequest(method: method, scheme: nil, authority: "127.0.0.1", path: path, headerFields: fields))
    }

    private static func send(_ channel: EmbeddedChannel, _ parts: HTTPRequestPart...) throws {
        for part in parts { try channel.writeInbound(part) }
    }

    /// The parts written so far, as (status, fields, body bytes) per answer.
    private static func answers(_ channel: EmbeddedChannel) throws -> [(HTTPResponse, Int)] {
        var answers: [(HTTPResponse, Int)] = []
        var current: HTTPResponse?, bytes = 0
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            switch part {
            case .head(let head): current = head; bytes = 0
            case .body(let body): bytes += body.readableBytes
            case .end:
                if let head = current { answers.append((head, bytes)) }
                current = nil
            }
        }
        return answers
    }

    private static func handedOn(_ channel: EmbeddedChannel) throws -> [String] {
        var paths: [String] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) {
            if case .head(let head) = part { paths.append(head.path ?? "") }
        }
        return paths
    }

    @Test func aHitIsAnsweredWithTheRoutersHeadersAndAnythingElseIsHandedOn() async throws {
        try await ProxyHarness.with { harness in
            let (channel, hot) = try await Self.channel(harness)
            let expected = await harness.get(hot)
            try Self.send(channel, Self.request(hot), .end(nil))
            let answers = try Self.answers(channel)
            #expect(try Self.handedOn(channel).isEmpty)
            try #require(answers.count == 1)
            let (head, bytes) = answers[0]
            #expect(head.status.code == 200 && bytes == expected.body.readableBytes)
            // The proxy's fields in its order, then what Hummingbird adds to every answer.
            let names = head.headerFields.map(\.name.canonicalName)
            #expect(names == expected.headers.map(\.name.canonicalName) + ["content-length", "date", "server"])
            #expect(head.headerFields[.contentLength] == String(expected.body.readableBytes))
            #expect(head.headerFields[.server] == "webimage" && head.headerFields[.eTag] == expected.header("ETag"))
            #expect(head.headerFields[.date].map { $0.hasSuffix(" GMT") && $0.count == 29 } == true)

            // HEAD: the length a GET would have, no body; a matching tag: 304 with no body.
            try Self.send(channel, Self.request(hot, method: .head), .end(nil),
                          Self.request(hot, [.ifNoneMatch: expected.header("ETag") ?? ""]), .end(nil))
            let more = try Self.answers(channel)
            #expect(more.map(\.0.status.code) == [200, 304] && more.map(\.1) == [0, 0])
            #expect(more[0].0.headerFields[.contentLength] == String(expected.body.readableBytes))

            // A query string is not part of the path the router matches: the same hit.
            try Self.send(channel, Self.request(hot + "?utm=1"), .end(nil))
            #expect(try Self.answers(channel).map(\.1) == [expected.body.readableBytes])
            #expect(try Self.handedOn(channel).isEmpty)

            // Handed on: another result, an endpoint, another method, and a request that closes its connection.
            let cold = harness.plainPath(["w:90"], "photo.jpg")
            try Self.send(channel, Self.request(cold), .end(nil))
            #expect(try Self.handedOn(channel) == [cold])
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            try Self.send(channel, Self.request("/health"), .end(nil))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            try Self.send(channel, Self.request(hot, method: .post), .end(nil))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            try Self.send(channel, Self.request(hot, [.connection: "close"]), .end(nil))
            #expect(try Self.handedOn(channel) == ["/health", hot, hot])
            #expect(try Self.answers(channel).isEmpty)
            _ = try channel.finish()
        }
    }

    @Test func whileAHandedOnRequestIsUnansweredHitsAreHandedOnToo() async throws {
        try await ProxyHarness.with { harness in
            let (channel, hot) = try await Self.channel(harness)
            let cold = harness.plainPath(["w:90"], "photo.jpg")
            // Pipelined: a miss, then a hit. The hit must not overtake the miss's answer.
            try Self.send(channel, Self.request(cold), .end(nil), Self.request(hot), .end(nil))
            #expect(try Self.handedOn(channel) == [cold, hot])
            #expect(try Self.answers(channel).isEmpty)
            // Both answered by Hummingbird; a hit after that is the handler's again.
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            _ = try Self.answers(channel)
            try Self.send(channel, Self.request(hot), .end(nil))
            #expect(try Self.handedOn(channel).isEmpty)
            #expect(try Self.answers(channel).map(\.0.status.code) == [200])
            _ = try channel.finish()
        }
    }

    @Test func withASecretAHitIsAnsweredOnlyWithItAndOthersAreHandedOnToBeRefused() async throws {
        let bearer = "Bearer t0ken"
        try await ProxyHarness.with(configuring: { $0.secret = "t0ken"; $0.allowedOrigin = "*" }) { harness in
            let hot = harness.plainPath(["w:100"], "photo.jpg")
            for _ in 0..<2 {
                let answer = await harness.proxy.respond(to: ProxyRequest(method: "GET", path: hot,
                                                                          authorization: bearer))
                #expect(answer.status == 200)
            }
            let log = AccessLog(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
            let channel = EmbeddedChannel(handler: MemoryHitResponder(proxy: harness.proxy, accessLog: log,
                                                                      serverName: "webimage"))
            // Without the secret, or with another: not answered here (the router answers 403).
            try Self.send(channel, Self.request(hot), .end(nil))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            try Self.send(channel, Self.request(hot, [.authorization: "Bearer wrong"]), .end(nil))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            #expect(try Self.handedOn(channel) == [hot, hot])
            #expect(try Self.answers(channel).isEmpty)
            // With it: answered here, twice (a repeat within the second from the kept head), CORS fields included.
            try Self.send(channel, Self.request(hot, [.authorization: bearer]), .end(nil),
                          Self.request(hot, [.authorization: bearer]), .end(nil))
            #expect(try Self.handedOn(channel).isEmpty)
            let answers = try Self.answers(channel)
            #expect(answers.map(\.0.status.code) == [200, 200])
            let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
            #expect(answers.map { $0.0.headerFields[allowOrigin] } == ["*", "*"])
            _ = try channel.finish()
        }
    }

    @Test func aHitsBodyIsReadAndDropped() async throws {
        try await ProxyHarness.with { harness in
            let (channel, hot) = try await Self.channel(harness)
            try Self.send(channel, Self.request(hot), .body(ByteBuffer(string: "ignored")), .end(nil),
                          Self.request("/health"), .end(nil))
            #expect(try Self.answers(channel).map(\.0.status.code) == [200])
            #expect(try Self.handedOn(channel) == ["/health"])
            _ = try channel.finish()
        }
    }
}
