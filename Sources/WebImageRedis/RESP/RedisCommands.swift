import Foundation
import NIOCore

/// The commands the cache tier uses. The tier depends on this protocol, not on the client below it, so that a
/// maintained Redis client can take its place without touching the tier.
protocol RedisCommands: Sendable {
    /// `GET`: the value, or `nil` when the key does not exist.
    func get(_ key: String) async throws(RedisError) -> ByteBuffer?
    /// `SET key value [PX ms] [NX]`: `false` when `NX` was given and the key existed.
    func set(_ key: String, to value: RedisArgument, expiresIn: Duration?, onlyIfAbsent: Bool) async throws(RedisError) -> Bool
    /// `DEL`: how many of the keys existed.
    @discardableResult
    func delete(_ keys: [String]) async throws(RedisError) -> Int
    /// `EXISTS` on one key.
    func exists(_ key: String) async throws(RedisError) -> Bool
    /// Deletes `key` only while it still holds `value` (a lease's owner token), in one step on the server.
    func deleteIfEqual(_ key: String, to value: String) async throws(RedisError) -> Bool
    /// Deletes every key that starts with `prefix` (`SCAN` + `UNLINK`: never on a hot path). Returns how many.
    func deleteAll(withPrefix prefix: String) async throws(RedisError) -> Int
    /// `PING`.
    func ping() async throws(RedisError)
}

/// The client this package brings: RESP2/RESP3 over swift-nio, pooled and pipelined.
final class RESPClient: RedisCommands {
    let pool: RedisConnectionPool

    init(configuration: RedisConfiguration) {
        pool = RedisConnectionPool(configuration: configuration)
    }

    /// Sends a command; an error reply is thrown as ``RedisError/serverError(_:)``.
    func command(_ arguments: [RedisArgument]) async throws(RedisError) -> RESPValue {
        let reply = try await pool.send(arguments)
        if let message = reply.errorMessage { throw .serverError(message) }
        return reply
    }

    func get(_ key: String) async throws(RedisError) -> ByteBuffer? {
        switch try await command(["GET", .text(key)]) {
        case .bulkString(let bytes): return bytes
        case .null: return nil
        case let other: throw .protocolViolation("GET answered \(other)")
        }
    }

    func set(_ key: String, to value: RedisArgument, expiresIn: Duration?, onlyIfAbsent: Bool) async throws(RedisError) -> Bool {
        var arguments: [RedisArgument] = ["SET", .text(key), value]
        if let expiresIn {
            let milliseconds = max(1, expiresIn.nanoseconds / 1_000_000)
            arguments += ["PX", .text(String(milliseconds))]
        }
        if onlyIfAbsent { arguments.append("NX") }
        switch try await command(arguments) {
        case .simpleString: return true
        case .null: return false  // NX and the key existed
        case let other: throw .protocolViolation("SET answered \(other)")
        }
    }

    func delete(_ keys: [String]) async throws(RedisError) -> Int {
        try Self.integer(await command(["DEL"] + keys.map { .text($0) }), of: "DEL")
    }

    func exists(_ key: String) async throws(RedisError) -> Bool {
        try Self.integer(await command(["EXISTS", .text(key)]), of: "EXISTS") == 1
    }

    func deleteIfEqual(_ key: String, to value: String) async throws(RedisError) -> Bool {
        let script = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"
        return try Self.integer(await command(["EVAL", .text(script), "1", .text(key), .text(value)]), of: "EVAL") == 1
    }

    func deleteAll(withPrefix prefix: String) async throws(RedisError) -> Int {
        var cursor = "0", deleted = 0
        // Glob characters in the prefix are escaped so that it matches only itself.
        let pattern = prefix.reduce(into: "") { escaped, character in
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        } + "*"
        repeat {
            let reply = try await command(["SCAN", .text(cursor), "MATCH", .text(pattern), "COUNT", "1000"])
            guard let parts = reply.elements, parts.count == 2, let next = parts[0].string, let keys = parts[1].elements
            else { throw .protocolViolation("SCAN answered \(reply)") }
            let names = keys.compactMap(\.string)
            if !names.isEmpty {
                deleted += try Self.integer(await command(["UNLINK"] + names.map { .text($0) }), of: "UNLINK")
            }
            cursor = next
        } while cursor != "0"
        return deleted
    }

    func ping() async throws(RedisError) {
        _ = try await command(["PING"])
    }

    private static func integer(_ reply: RESPValue, of command: String) throws(RedisError) -> Int {
        guard case .integer(let value) = reply else { throw .protocolViolation("\(command) answered \(reply)") }
        return Int(value)
    }
}
