import Foundation
import NIOCore
import TestImageServer
import Testing
@testable import WebImageRedis

/// The client against a real redis-server: values of every size, error replies, RESP3 aggregates, pipelining,
/// databases and credentials.
@Suite(.serialized) struct RESPClientTests {
    let server: RedisServerProcess

    init() throws {
        server = try RedisServerProcess.start(arguments: ["--requirepass", "sesame"])
    }

    private func client(password: String? = "sesame", database: Int = 0, poolSize: Int = 4) throws -> RESPClient {
        var configuration = try RedisConfiguration(url: server.url(password: password, database: database))
        configuration.poolSize = poolSize
        configuration.commandTimeout = .seconds(30)  // sanitizer builds are slow; nothing here tests a timeout
        configuration.connectTimeout = .seconds(30)
        return RESPClient(configuration: configuration)
    }

    @Test(arguments: [0, 1, 13, 65_536, 5_000_000])
    func bulkStringsOfAnySizeRoundTrip(_ size: Int) async throws {
        let client = try client()
        // Every byte value, CR LF pairs and "$" included.
        let value = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        #expect(try await client.set("blob", to: .bytes(value), expiresIn: nil, onlyIfAbsent: false))
        let read = try await client.get("blob")
        #expect(read.map { Data($0.readableBytesView) } == value)
    }

    @Test func aMissingKeyIsNil() async throws {
        #expect(try await client().get("no-such-key") == nil)
    }

    @Test func errorRepliesAreServerErrorsAndTheConnectionStaysUsable() async throws {
        let client = try client(poolSize: 1)
        _ = try await client.command(["RPUSH", "list", "a"])
        await #expect(throws: RedisError.self) { try await client.get("list") }  // WRONGTYPE
        do {
            _ = try await client.command(["NO-SUCH-COMMAND"])
            Issue.record("an unknown command succeeded")
        } catch {
            guard case .serverError(let message) = error else { throw error }
            #expect(message.hasPrefix("ERR"))
        }
        _ = try await client.set("after", to: "1", expiresIn: nil, onlyIfAbsent: false)
        #expect(try await client.get("after").map { String(buffer: $0) } == "1")
    }

    @Test func resp3MapsSetsAndDoubles() async throws {
        let client = try client()
        _ = try await client.command(["DEL", "hash", "set"])
        _ = try await client.command(["HSET", "hash", "a", "1", "b", "2"])
        let map = try await client.command(["HGETALL", "hash"])
        guard case .map(let pairs) = map else { Issue.record("HGETALL answered \(map)"); return }
        #expect(Dictionary(uniqueKeysWithValues: pairs.map { ($0.key.string ?? "", $0.value.string ?? "") }) == ["a": "1", "b": "2"])
        _ = try await client.command(["SADD", "set", "x", "y"])
        guard case .set(let members) = try await client.command(["SMEMBERS", "set"]) else {
            Issue.record("SMEMBERS is not a set")
            return
        }
        #expect(Set(members.compactMap(\.string)) == ["x", "y"])
        _ = try await client.command(["ZADD", "zset", "1.5", "m"])
        #expect(try await client.command(["ZSCORE", "zset", "m"]) == .double(1.5))
    }

    @Test func setOnlyIfAbsentAndExpiry() async throws {
        let client = try client()
        _ = try await client.delete(["lease"])
        #expect(try await client.set("lease", to: "a", expiresIn: .seconds(30), onlyIfAbsent: true))
        #expect(try await client.set("lease", to: "b", expiresIn: .seconds(30), onlyIfAbsent: true) == false)
        #expect(try await client.get("lease").map { String(buffer: $0) } == "a")
        guard case .integer(let milliseconds) = try await client.command(["PTTL", "lease"]) else { throw RedisError.timeout }
        #expect(milliseconds > 25_000 && milliseconds <= 30_000)
        #expect(try await client.deleteIfEqual("lease", to: "b") == false)
        #expect(try await client.deleteIfEqual("lease", to: "a"))
        #expect(try await client.exists("lease") == false)
    }

    @Test func pipelinedRepliesPairWithTheirCommands() async throws {
        let client = try client(poolSize: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<300 {
                group.addTask {
                    let key = "pipelined-\(index)"
                    _ = try await client.set(key, to: .text(String(repeating: "v", count: index)), expiresIn: nil, onlyIfAbsent: false)
                    let read = try await client.get(key)
                    #expect(read.map { String(buffer: $0) } == String(repeating: "v", count: index))
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func aSlowServerTimesOutAndLateRepliesDoNotReachLaterCommands() async throws {
        var configuration = try RedisConfiguration(url: server.url(password: "sesame"))
        configuration.poolSize = 1
        configuration.commandTimeout = .milliseconds(300)
        configuration.connectTimeout = .seconds(30)
        let client = RESPClient(configuration: configuration)
        _ = try await client.set("slow", to: "old", expiresIn: nil, onlyIfAbsent: false)
        server.pause()
        do {
            _ = try await client.get("slow")
            Issue.record("an answer from a stopped server")
        } catch {
            #expect(error == .timeout)
        }
        server.resume()
        // The late reply to the GET above arrives first and is dropped; these get their own.
        _ = try await client.set("fresh", to: "new", expiresIn: nil, onlyIfAbsent: false)
        #expect(try await client.get("fresh").map { String(buffer: $0) } == "new")
    }

    @Test func databasesAreSeparate() async throws {
        let zero = try client(), three = try client(database: 3)
        _ = try await zero.delete(["db-key"])
        _ = try await three.set("db-key", to: "in three", expiresIn: nil, onlyIfAbsent: false)
        #expect(try await zero.get("db-key") == nil)
        #expect(try await three.get("db-key").map { String(buffer: $0) } == "in three")
    }

    @Test func wrongOrMissingPasswordsAreAuthenticationFailures() async throws {
        for password in ["wrong", nil] {
            let client = try client(password: password)
            do throws(RedisError) {
                try await client.pool.connectAll()
                Issue.record("connected with password \(password ?? "none")")
            } catch {
                if case .authenticationFailed = error {} else { Issue.record("\(error)") }
            }
        }
    }

    @Test func aDeletePrefixScanLeavesOtherKeys() async throws {
        let client = try client()
        for index in 0..<1_200 { _ = try await client.set("ns:a:\(index)", to: "1", expiresIn: nil, onlyIfAbsent: false) }
        _ = try await client.set("ns:b", to: "1", expiresIn: nil, onlyIfAbsent: false)
        _ = try await client.set("ns:a*", to: "1", expiresIn: nil, onlyIfAbsent: false)
        #expect(try await client.deleteAll(withPrefix: "ns:a:") == 1_200)
        #expect(try await client.exists("ns:b"))
        #expect(try await client.exists("ns:a*"))
    }
}
