import Dispatch
import Foundation
import Synchronization
import Testing
import WebImage

/// The `async` decode, encode and transform entry points run on a ``CPUExecutor``'s threads, never on Swift's
/// shared pool: work that blocks there for as long as it likes leaves the pool free for every other task.
@Suite(.timeLimit(.minutes(1)))
struct CPUExecutorImageWorkTests {
    /// A coder whose decodes and encodes block until the test lets them go, counting those that started.
    private final class BlockingCoder: ImageCoder, Sendable {
        let started = Atomic(0)
        let gate = DispatchSemaphore(value: 0)

        func canDecode(_ data: Data) -> Bool { data.first == 0xB1 }
        func canEncode(to format: ImageFormat) -> Bool { format == .png }

        func decode(_ data: Data, options: DecodeOptions) throws -> Image {
            started.add(1, ordering: .sequentiallyConsistent)
            gate.wait()
            return Image(pixels: try PixelBuffer(width: 2, height: 2, filledWith: RGBA(9, 8, 7)))
        }

        func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
            started.add(1, ordering: .sequentiallyConsistent)
            gate.wait()
            return Data([0xB1, UInt8(image.size.width)])
        }
    }

    /// More blocked jobs than the shared pool has threads: were they on it, the task that releases them could
    /// never run and the test would stop at its time limit.
    @Test func blockedWorkLeavesTheSharedPoolFree() async throws {
        let coder = BlockingCoder()
        let coders = ImageCoders(coders: [coder])
        let jobs = ProcessInfo.processInfo.activeProcessorCount + 2
        let executor = CPUExecutor(width: jobs)
        let image = Image(pixels: try PixelBuffer(width: 5, height: 5, filledWith: RGBA(1, 2, 3)))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<jobs {
                group.addTask {
                    switch index % 3 {
                    case 0: try await coders.decode(Data([0xB1]), on: executor).size.width
                    case 1: Int(try await coders.encode(image, as: .png, on: executor)[1])
                    default:
                        // A transformer whose own work blocks: the resize runs after a blocking decode.
                        try await ImageTransformers.Resize(to: PixelSize(width: 3, height: 3), fit: .fill)
                            .transform(try await coders.decode(Data([0xB1]), on: executor), on: executor).size.width
                    }
                }
            }
            // This task runs on the shared pool while every job blocks on the executor's threads.
            while coder.started.load(ordering: .sequentiallyConsistent) < jobs {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(executor.running == jobs)
            for _ in 0..<jobs { coder.gate.signal() }
            var widths: [Int] = []
            for try await width in group { widths.append(width) }
            #expect(widths.sorted() == (0..<jobs).map { [2, 5, 3][$0 % 3] }.sorted())
        }
        #expect(executor.running == 0 && executor.waiting == 0)
    }

    private final class Order: Sendable {
        let items = Mutex<[String]>([])
    }

    /// Past its width, work waits in line, highest priority first; past the line's limit it is refused at once.
    @Test func aFullLineRefusesAndTheLineRunsByPriority() async throws {
        let coder = BlockingCoder()
        let coders = ImageCoders(coders: [coder])
        let executor = CPUExecutor(width: 1, queueLimit: 2)
        let order = Order()
        let blocker = Task { try await coders.decode(Data([0xB1]), on: executor) }
        while coder.started.load(ordering: .sequentiallyConsistent) < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let low = Task {
            try await executor.run(priority: .low) { order.items.withLock { $0.append("low") } }
        }
        while executor.waiting < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let high = Task {
            try await executor.run(priority: .high) { order.items.withLock { $0.append("high") } }
        }
        while executor.waiting < 2 { try await Task.sleep(for: .milliseconds(1)) }
        await #expect(throws: SlotQueueFull.self) { try await coders.decode(Data([0xB1]), on: executor) }
        coder.gate.signal()
        _ = try await blocker.value
        try await low.value
        try await high.value
        #expect(order.items.withLock { $0 } == ["high", "low"])
        #expect(executor.running == 0 && executor.waiting == 0)
    }
}
