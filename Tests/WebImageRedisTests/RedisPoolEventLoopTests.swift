import Foundation
import NIOCore
import NIOPosix
import TestImageServer
import Testing
@testable import WebImageRedis

/// Which connection carries a command: a caller on one of NIO's event loops stays on its loop's connections,
/// any other caller takes every connection in turn. Seen from the server's side, by `CLIENT ID`.
@Suite(.serialized) struct RedisPoolEventLoopTests {
    let server: RedisServerProcess

    init() throws {
        server = try RedisServerProcess.start()
    }

    private func client(poolSize: Int) throws -> RESPClient {
        var configuration = try RedisConfiguration(url: server.url())
        configuration.poolSize = poolSize
        configuration.commandTimeout = .seconds(30)  // sanitizer builds are slow; nothing here tests a timeout
        configuration.connectTimeout = .seconds(30)
        return RESPClient(configuration: configuration)
    }

    private static let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())

    @Test func aCallerOnAnEventLoopUsesOnlyTheConnectionsOnItsLoop() async throws {
        let poolSize = 4
        let client = try client(poolSize: poolSize)
        let used = Array(Self.loops.prefix(poolSize))
        var fromOutside = Set<Int64>()
        for _ in 0..<(poolSize * 10) { fromOutside.insert(try await Self.clientID(client.pool)) }
        #expect(fromOutside.count == poolSize)

        var seen = Set<Int64>()
        for (position, loop) in used.enumerated() {
            let caller = OnEventLoop(loop)
            let ids = try await caller.clientIDs(client.pool, count: poolSize * 10)
            // Slot n lives on loop n % used.count: this loop's share of the pool.
            let share = (0..<poolSize).filter { $0 % used.count == position }.count
            #expect(ids.count == share, "loop \(position): \(ids.count) connections, expected \(share)")
            #expect(ids.isDisjoint(with: seen), "loop \(position) shares a connection with another loop")
            #expect(ids.isSubset(of: fromOutside))
            seen.formUnion(ids)
        }
        #expect(seen == fromOutside)
    }

    @Test func thousandsOfCommandsFromEveryLoopAndFromOutsideAreEachAnsweredWithTheirOwnReply() async throws {
        let client = try client(poolSize: 4)
        let callers = Self.loops.map(OnEventLoop.init)
        let perCaller = 1_000
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for (position, caller) in callers.enumerated() {
                for index in 0..<perCaller {
                    group.addTask { try await caller.roundTrip(client, key: "loop\(position)-\(index)") ? 1 : 0 }
                }
            }
            for index in 0..<perCaller {
                group.addTask {
                    let key = "outside-\(index)"
                    _ = try await client.set(key, to: .text(key), expiresIn: nil, onlyIfAbsent: false)
                    return try await client.get(key).map { String(buffer: $0) } == key ? 1 : 0
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == perCaller * (callers.count + 1))
    }

    private static func clientID(_ pool: RedisConnectionPool) async throws -> Int64 {
        guard case .integer(let id) = try await pool.send(["CLIENT", "ID"]) else { throw RedisError.protocolViolation("CLIENT ID") }
        return id
    }
}

/// Runs its methods on one event loop's thread, as the tasks of `webimage serve`'s requests run.
private actor OnEventLoop {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    func clientIDs(_ pool: RedisConnectionPool, count: Int) async throws -> Set<Int64> {
        var ids = Set<Int64>()
        for _ in 0..<count {
            #expect(loop.inEventLoop)
            guard case .integer(let id) = try await pool.send(["CLIENT", "ID"]) else {
                throw RedisError.protocolViolation("CLIENT ID")
            }
            ids.insert(id)
        }
        return ids
    }

    /// SET then GET of `key` holding its own name, both sent from this loop.
    func roundTrip(_ client: RESPClient, key: String) async throws -> Bool {
        guard case .simpleString = try await client.pool.send(["SET", .text(key), .text(key)]) else { return false }
        guard case .bulkString(let value) = try await client.pool.send(["GET", .text(key)]) else { return false }
        return String(buffer: value) == key
    }
}
