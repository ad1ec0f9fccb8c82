#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Recycles large blocks of pixel memory between decodes.
///
/// glibc hands every block above its mmap threshold (at most 32 MB) straight back to the kernel on `free`, so a
/// 12 MP decode into a fresh 48 MB buffer page-faults all of it again: +58% decode time on this project's reference
/// machine. Keeping a few freed blocks per size class removes that cost. Blocks below ``minimumPooledBytes`` are
/// cheap for malloc and are not pooled; the largest fresh blocks come from ``LargePageMemory``, in huge pages, so
/// that the first decode in a fresh process pays few faults too.
package final class PixelMemoryPool: Sendable {
    /// The pool every ``PixelBuffer`` allocates from.
    package static let shared = PixelMemoryPool()

    /// Blocks smaller than this go straight to malloc.
    package static let minimumPooledBytes = 1 << 20

    private struct State: @unchecked Sendable {  // C boundary: raw malloc blocks, only touched under the lock
        var freeBlocks: [Int: [UnsafeMutableRawPointer]] = [:]
        var retainedBytes = 0
        var maximumRetainedBytes: Int
    }

    private let state: Locked<State>

    /// Creates a pool that keeps at most `maximumRetainedBytes` of idle memory.
    package init(maximumRetainedBytes: Int = 256 << 20) {
        state = Locked(State(maximumRetainedBytes: maximumRetainedBytes))
    }

    /// The most idle memory the pool keeps; lowering it frees blocks at once.
    package var maximumRetainedBytes: Int {
        get { state.withLock { $0.maximumRetainedBytes } }
        set {
            state.withLock { $0.maximumRetainedBytes = newValue }
            trim(to: newValue)
        }
    }

    /// Bytes currently held idle by the pool.
    package var retainedBytes: Int { state.withLock { $0.retainedBytes } }

    /// Frees every idle block (for memory pressure).
    package func drain() { trim(to: 0) }

    /// The capacity actually reserved for a request of `byteCount` bytes: small requests exactly, large ones
    /// rounded up to a quarter-power-of-two class so that similar sizes share blocks. Pages past the requested
    /// length are never touched, so rounding costs address space, not memory.
    static func capacity(for byteCount: Int) -> Int {
        guard byteCount >= minimumPooledBytes else { return max(byteCount, 1) }
        let highBit = Int.bitWidth - 1 - byteCount.leadingZeroBitCount
        let step = 1 << (highBit - 2)
        return (byteCount + step - 1) / step * step
    }

    /// Returns a block of at least `byteCount` bytes (uninitialised) and its capacity, or `nil` when the system
    /// is out of memory.
    func allocate(byteCount: Int) -> (pointer: UnsafeMutableRawPointer, capacity: Int)? {
        let capacity = Self.capacity(for: byteCount)
        if capacity >= Self.minimumPooledBytes {
            let reused = state.withLock { box -> UnsafeMutableRawPointer? in
                guard let block = box.freeBlocks[capacity]?.popLast() else { return nil }
                box.retainedBytes -= capacity
                return block
            }
            if let reused { return (reused, capacity) }
        }
        guard let fresh = LargePageMemory.allocate(byteCount: capacity) else { return nil }
        return (fresh, capacity)
    }

    /// Takes a block back; keeps it for reuse while the pool is under its limit.
    func recycle(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        if capacity >= Self.minimumPooledBytes {
            let kept = state.withLock { box -> Bool in
                guard box.retainedBytes + capacity <= box.maximumRetainedBytes else { return false }
                box.freeBlocks[capacity, default: []].append(pointer)
                box.retainedBytes += capacity
                return true
            }
            if kept { return }
        }
        LargePageMemory.release(pointer, byteCount: capacity)
    }

    private func trim(to limit: Int) {
        let released = state.withLock { box -> [(pointer: UnsafeMutableRawPointer, capacity: Int)] in
            var released: [(pointer: UnsafeMutableRawPointer, capacity: Int)] = []
            while box.retainedBytes > limit,
                  let capacity = box.freeBlocks.first(where: { !$0.value.isEmpty })?.key,
                  let block = box.freeBlocks[capacity]?.popLast() {
                box.retainedBytes -= capacity
                released.append((block, capacity))
            }
            return released
        }
        released.forEach { LargePageMemory.release($0.pointer, byteCount: $0.capacity) }
    }
}

/// Samples of scratch memory from the pixel pool, given back with ``release()``.
struct ScratchSamples<Sample: PixelSample> {
    let base: UnsafeMutablePointer<Sample>
    private let block: (pointer: UnsafeMutableRawPointer, capacity: Int)

    /// `count` samples, not zeroed. Throws `ImageError.Code.imageTooLarge`, naming `purpose`, without memory.
    init(count: Int, for purpose: @autoclosure () -> String) throws {
        guard let block = PixelMemoryPool.shared.allocate(byteCount: count * MemoryLayout<Sample>.stride) else {
            throw ImageError(.imageTooLarge, "cannot allocate \(purpose())")
        }
        self.block = block
        base = block.pointer.bindMemory(to: Sample.self, capacity: count)
    }

    func release() { PixelMemoryPool.shared.recycle(block.pointer, capacity: block.capacity) }
}
