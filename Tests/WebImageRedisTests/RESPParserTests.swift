import Foundation
import NIOCore
import Testing
@testable import WebImageRedis

/// The parser on bytes written by hand: every RESP2 and RESP3 type, replies split at every byte, and broken input.
struct RESPParserTests {
    private func parseAll(_ text: String) throws -> [RESPValue] {
        var buffer = ByteBuffer(string: text)
        var values: [RESPValue] = []
        while let value = try RESPParser.parse(&buffer) { values.append(value) }
        #expect(buffer.readableBytes == 0, "bytes left over")
        return values
    }

    private func bulk(_ text: String) -> RESPValue { .bulkString(ByteBuffer(string: text)) }

    @Test func resp2Types() throws {
        let values = try parseAll("+OK\r\n-ERR wrong\r\n:-42\r\n$5\r\nhello\r\n$0\r\n\r\n$-1\r\n*-1\r\n*2\r\n:1\r\n$1\r\nx\r\n*0\r\n")
        #expect(values == [.simpleString("OK"), .error("ERR wrong"), .integer(-42), bulk("hello"), bulk(""), .null, .null,
                           .array([.integer(1), bulk("x")]), .array([])])
    }

    @Test func resp3Types() throws {
        let values = try parseAll(
            "_\r\n#t\r\n#f\r\n,3.25\r\n,inf\r\n(3492890328409238509324850943850943825024385\r\n!9\r\nSYNTAX no\r\n"
                + "=8\r\ntxt:Some\r\n%2\r\n+a\r\n:1\r\n$1\r\nb\r\n*1\r\n_\r\n~2\r\n:1\r\n:2\r\n>2\r\n+message\r\n+x\r\n")
        #expect(values == [
            .null, .boolean(true), .boolean(false), .double(3.25), .double(.infinity),
            .bigNumber("3492890328409238509324850943850943825024385"), .error("SYNTAX no"), bulk("Some"),
            .map([(key: .simpleString("a"), value: .integer(1)), (key: bulk("b"), value: .array([.null]))]),
            .set([.integer(1), .integer(2)]), .push([.simpleString("message"), .simpleString("x")]),
        ])
    }

    @Test func attributesAreSkippedForTheReplyTheyDescribe() throws {
        #expect(try parseAll("|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*1\r\n:2\r\n") == [.array([.integer(2)])])
    }

    @Test func bulkStringsCarryAnyBytes() throws {
        let payload = "a\r\nb\r\n\0$3\r\n"
        #expect(try parseAll("$\(payload.utf8.count)\r\n\(payload)\r\n") == [bulk(payload)])
    }

    @Test func aReplySplitAnywhereParsesOnceComplete() throws {
        let text = "*3\r\n$5\r\nhello\r\n%1\r\n+k\r\n,1.5\r\n:7\r\n"
        let bytes = Array(text.utf8)
        for split in 1..<bytes.count {
            var buffer = ByteBuffer(bytes: bytes[..<split])
            #expect(try RESPParser.parse(&buffer) == nil, "complete after \(split) bytes")
            #expect(buffer.readableBytes == split, "consumed a partial reply")
            buffer.writeBytes(bytes[split...])
            let value = try RESPParser.parse(&buffer)
            #expect(value == .array([bulk("hello"), .map([(key: .simpleString("k"), value: .double(1.5))]), .integer(7)]))
        }
    }

    @Test(arguments: [
        "?what\r\n", ":12x\r\n", "$-2\r\n", "$\(RESPParser.maximumBulkLength + 1)\r\n", "*-5\r\n", "$3\r\nabcXY",
        "#x\r\n", "+OK\rX", "_x\r\n", "=2\r\nab\r\n",
    ])
    func brokenInputIsAProtocolViolation(_ text: String) {
        var buffer = ByteBuffer(string: text)
        #expect(throws: RedisError.self) { try RESPParser.parse(&buffer) }
    }

    @Test func nestingIsBounded() {
        var buffer = ByteBuffer(string: String(repeating: "*1\r\n", count: RESPParser.maximumDepth + 2) + ":1\r\n")
        #expect(throws: RedisError.self) { try RESPParser.parse(&buffer) }
    }

    @Test func aLineWithoutItsEndIsBounded() {
        var buffer = ByteBuffer(string: "+" + String(repeating: "a", count: RESPParser.maximumLineLength + 10))
        #expect(throws: RedisError.self) { try RESPParser.parse(&buffer) }
    }

    @Test func aHugeDeclaredAggregateReservesNothingUpFront() throws {
        var buffer = ByteBuffer(string: "*\(RESPParser.maximumElements)\r\n:1\r\n")
        #expect(try RESPParser.parse(&buffer) == nil)
    }

    @Test func commandsAreArraysOfBulkStrings() {
        var buffer = ByteBuffer()
        RESPCommandEncoding.write(["SET", .text("k"), .joined([1, 2], Data([3])), .bytes(Data())], into: &buffer)
        #expect(buffer == ByteBuffer(bytes: Array("*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n".utf8) + [1, 2, 3]
            + Array("\r\n$0\r\n\r\n".utf8)))
    }

    @Test(arguments: [
        ("redis://localhost", RedisConfiguration(host: "localhost")),
        ("redis://:p%40ss@10.0.0.2:6380/3", RedisConfiguration(host: "10.0.0.2", port: 6380, password: "p@ss", database: 3)),
        ("rediss://app:secret@cache.internal", RedisConfiguration(host: "cache.internal", user: "app", password: "secret", usesTLS: true)),
    ])
    func urls(_ text: String, _ expected: RedisConfiguration) throws {
        #expect(try RedisConfiguration(url: text) == expected)
    }

    @Test(arguments: ["http://localhost", "redis://", "redis://host/x", "redis://host:70000", "not a url"])
    func badURLs(_ text: String) {
        #expect(throws: RedisError.self) { try RedisConfiguration(url: text) }
    }

    @Test func theRedactedURLHidesThePassword() throws {
        #expect(try RedisConfiguration(url: "redis://u:secret@h:1/2").redactedURL == "redis://u:***@h:1/2")
    }
}
