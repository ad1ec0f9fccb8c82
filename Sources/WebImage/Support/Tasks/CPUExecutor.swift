import Dispatch
import Foundation

/// Where CPU-bound work runs (decoding, transforming, rendering, encoding): a bounded number of jobs at once, on
/// threads of their own. Jobs beyond the number of cores only add memory (every running decode holds its
/// pixels) without finishing sooner, and a job that blocks a cooperative thread of Swift's shared pool for tens
/// of milliseconds delays every task that waits for that thread (network callbacks, cache hits, timers): so the
/// work runs on dispatch threads, and the slots in front of them decide how many run and in which order.
///
/// A server calls the `async` entry points that take an executor
/// (``ImageCoders/decode(_:options:on:priority:)-(Data,_,_,_)``, ``ImageCoders/encode(_:as:options:on:priority:)``,
/// ``ImageTransformer/transform(_:on:priority:)``) with ``shared`` or one of its own: its request handlers then wait
/// for the work without holding a thread of the shared pool, so a large upload being decoded does not delay the
/// requests that only read a cache.
public final class CPUExecutor: Sendable {
    /// The library's own executor: as many jobs at once as the machine has cores, and at most 1 024 waiting (a
    /// server whose line is longer is overloaded; ``SlotQueueFull`` lets it answer so).
    public static let shared = CPUExecutor(width: ProcessInfo.processInfo.activeProcessorCount, queueLimit: 1024)

    /// The slots jobs wait for (their gauges: `running`, `waiting`).
    package let slots: PrioritySlots
    private let threads: DispatchQueue

    /// Jobs running now.
    public var running: Int { slots.running }
    /// Jobs waiting for a slot now.
    public var waiting: Int { slots.waiting }

    /// An executor running at most `width` jobs at once; past that at most `queueLimit` wait (then
    /// ``SlotQueueFull`` is thrown). `label` names its threads.
    public init(width: Int, queueLimit: Int = .max, label: String = "webimage.cpu") {
        slots = PrioritySlots(width: width, queueLimit: queueLimit)
        threads = DispatchQueue(label: label, qos: .userInitiated, attributes: .concurrent)
    }

    /// `body`'s result, computed on an executor thread once a slot is free, higher priorities first. A task
    /// cancelled while it waits throws `ImageError.Code.cancelled` and never runs `body`; with the line full,
    /// ``SlotQueueFull`` is thrown at once.
    public func run<T: Sendable>(priority: ImagePriority = .normal,
                                 _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await slots.run(priority: priority) { try await onThread(body) }
    }

    /// `body`'s result, computed on an executor thread once a slot is free for `work`, whose priority it follows
    /// while it waits.
    package func run<Value: Sendable, Update: Sendable, T: Sendable>(
        for work: SharedTask<Value, Update>, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await slots.run(for: work) { try await onThread(body) }
    }

    private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            threads.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
