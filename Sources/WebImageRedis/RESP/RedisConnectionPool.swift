import Foundation
import WebImage
import NIOCore
import NIOPosix

/// A few connections used in turn, each carrying many commands at once. A connection that fails is made again
/// on the next command that needs it, after a backoff that doubles with each failed attempt (50 ms up to 1.6 s), so a
/// server that is down costs a fast failure, not a connection attempt, per command.
///
/// The connections are spread over NIO's event loops, and a caller already running on one of them (a request of
/// `webimage serve`, whose tasks run on the loops) uses the connections on its own loop: its command is written
/// and its reply taken up on the thread it is on, where a connection on another loop costs a thread wake-up each
/// way. Callers on any other thread use every connection in turn.
final class RedisConnectionPool: Sendable {
    let configuration: RedisConfiguration
    private let slots: [Locked<Slot>]
    private let turn = Locked(0)
    /// The loops the connections run on: slot `n` on `eventLoops[n % eventLoops.count]`.
    private let eventLoops: [any EventLoop]
    /// The slots on each loop, in the order of `eventLoops`.
    private let slotsByLoop: [[Int]]
    private let allSlots: [Int]

    private enum Slot {
        case idle(failures: Int, retryAfter: ContinuousClock.Instant?, lastError: RedisError?)
        case connecting(Task<RedisConnection, any Error>, failures: Int)
        case ready(RedisConnection)
    }

    init(configuration: RedisConfiguration) {
        self.configuration = configuration
        let count = max(1, configuration.poolSize)
        slots = (0..<count).map { _ in Locked(.idle(failures: 0, retryAfter: nil, lastError: nil)) }
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator().prefix(count))
        eventLoops = loops
        allSlots = Array(0..<count)
        slotsByLoop = loops.indices.map { loop in Array(stride(from: loop, to: count, by: loops.count)) }
    }

    private func eventLoop(forSlot index: Int) -> any EventLoop { eventLoops[index % eventLoops.count] }

    /// The slots a command from the calling thread takes its turn among.
    private func candidateSlots() -> [Int] {
        if let current = MultiThreadedEventLoopGroup.currentEventLoop,
           let loop = eventLoops.firstIndex(where: { $0 === current }) {
            return slotsByLoop[loop]
        }
        return allSlots
    }

    /// Sends `arguments` on the next connection in turn; an error reply is returned, not thrown. It runs on the
    /// caller's executor (`nonsending`), so that the choice of connection sees the caller's thread.
    nonisolated(nonsending) func send(_ arguments: [RedisArgument]) async throws(RedisError) -> RESPValue {
        let candidates = candidateSlots()
        let index = candidates[turn.withLock { turn in
            defer { turn &+= 1 }
            return turn % candidates.count
        }]
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

    private nonisolated(nonsending) func connection(at index: Int) async throws(RedisError) -> RedisConnection {
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
            let task = Task { () async throws -> RedisConnection in try await RedisConnection.connect(configuration, group: self.eventLoop(forSlot: index)) }
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
