import Foundation
import WebImage
import NIOCore
import NIOPosix

/// A few connections used in turn, each carrying many commands at once. A connection that fails is made again
/// on the next command that needs it, after a backoff that doubles with each failed attempt (50 ms up to 1.6 s), so a
/// server that is down costs a fast failure, not a connection attempt, per command.
final class RedisConnectionPool: Sendable {
    let configuration: RedisConfiguration
    private let slots: [Locked<Slot>]
    private let turn = Locked(0)
    /// One event loop for all of the pool's connections: replies that arrive together are read in one wake-up,
    /// and commands written while the loop is awake need no wake-up of their own (with the connections spread
    /// over every loop, each command woke a thread, which cost a third of SET throughput on two cores).
    private let eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()

    private enum Slot {
        case idle(failures: Int, retryAfter: ContinuousClock.Instant?, lastError: RedisError?)
        case connecting(Task<RedisConnection, any Error>, failures: Int)
        case ready(RedisConnection)
    }

    init(configuration: RedisConfiguration) {
        self.configuration = configuration
        slots = (0..<max(1, configuration.poolSize)).map { _ in
            Locked(.idle(failures: 0, retryAfter: nil, lastError: nil))
        }
    }

    /// Sends `arguments` on the next connection in turn; an error reply is returned, not thrown.
    func send(_ arguments: [RedisArgument]) async throws(RedisError) -> RESPValue {
        let index = turn.withLock { turn in
            defer { turn &+= 1 }
            return turn % slots.count
        }
        return try await connection(at: index).send(arguments)
    }

    /// Makes every connection now: a wrong password or an unreachable server is reported here, at start-up,
    /// rather than by the first request.
    func connectAll() async throws(RedisError) {
        for index in slots.indices { _ = try await connection(at: index) }
    }

    private enum Route {
        case ready(RedisConnection)
        case wait(Task<RedisConnection, any Error>, failures: Int)
        case refuse(RedisError)
    }

    private func connection(at index: Int) async throws(RedisError) -> RedisConnection {
        let slot = slots[index]
        let configuration = configuration
        let route: Route = slot.withLock { state in
            var failures = 0
            switch state {
            case .ready(let connection) where connection.isActive:
                return .ready(connection)
            case .connecting(let task, let earlier):
                return .wait(task, failures: earlier)
            case .ready:
                break  // closed under us: connect again at once
            case .idle(let earlier, let retryAfter, let lastError):
                if let retryAfter, ContinuousClock.now < retryAfter {
                    return .refuse(.unavailable("reconnecting after: \(lastError?.description ?? "a failure")"))
                }
                failures = earlier
            }
            let task = Task { () async throws -> RedisConnection in try await RedisConnection.connect(configuration, group: eventLoop) }
            state = .connecting(task, failures: failures)
            return .wait(task, failures: failures)
        }
        let task: Task<RedisConnection, any Error>, failures: Int
        switch route {
        case .ready(let connection): return connection
        case .refuse(let error): throw error
        case .wait(let waited, let earlier): (task, failures) = (waited, earlier)
        }
        do {
            let connection = try await task.value
            slot.withLock { state in
                if case .connecting(let current, _) = state, current == task { state = .ready(connection) }
            }
            return connection
        } catch {
            let failure = (error as? RedisError) ?? .connectionFailed("\(error)")
            slot.withLock { state in
                guard case .connecting(let current, _) = state, current == task else { return }
                let backoff = Duration.milliseconds(50 << min(failures, 5))  // 50 ms … 1.6 s
                state = .idle(failures: failures + 1, retryAfter: .now + backoff, lastError: failure)
            }
            throw failure
        }
    }
}
