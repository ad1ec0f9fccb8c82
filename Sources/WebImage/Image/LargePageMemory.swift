#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Fresh memory for the largest pixel blocks, mapped so that the kernel can back it with huge pages.
///
/// A 12 MP bitmap is 48 MB: in 4 KB pages its first write takes some 12 000 page faults, which cost a fresh
/// process more than a third of a JPEG decode on this project's reference machine. On Linux the block is mapped
/// on a 2 MB boundary and marked `MADV_HUGEPAGE` (transparent huge pages run in `madvise` mode on common
/// distributions), so the same first write takes two dozen faults. Elsewhere, and for blocks too small to fill a
/// huge page or two, this is plain `malloc`.
enum LargePageMemory {
    /// The transparent huge page size on x86-64 and on arm64 with 4 KB base pages.
    static let hugePageSize = 2 << 20

    /// Blocks from this size up are page-mapped: rounding them to whole huge pages wastes at most an eighth.
    static let minimumMappedBytes = 16 << 20

    /// Whether blocks of `capacity` bytes come from ``map(byteCount:)`` (and must go back through ``release``).
    static func isMapped(capacity: Int) -> Bool {
        #if os(Linux)
        return capacity >= minimumMappedBytes
        #else
        return false
        #endif
    }

    /// Returns `byteCount` bytes of uninitialised memory, or `nil` when the system is out of memory.
    static func allocate(byteCount: Int) -> UnsafeMutableRawPointer? {
        guard isMapped(capacity: byteCount) else { return malloc(max(byteCount, 1)) }
        #if os(Linux)
        let length = mappedLength(byteCount)
        // Over-reserve by one huge page, then give back the unaligned head and the tail.
        let reserved = length + hugePageSize
        guard let start = mmap(nil, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              start != MAP_FAILED else { return nil }
        let address = UInt(bitPattern: start)
        let aligned = (address + UInt(hugePageSize) - 1) & ~UInt(hugePageSize - 1)
        let head = Int(aligned - address)
        if head > 0 { munmap(start, head) }
        let tail = reserved - head - length
        if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: aligned + UInt(length)), tail) }
        let block = UnsafeMutableRawPointer(bitPattern: aligned)!
        // Advice only: a kernel without transparent huge pages keeps 4 KB pages and the block still works.
        _ = madvise(block, length, MADV_HUGEPAGE)
        return block
        #else
        return malloc(byteCount)
        #endif
    }

    /// Gives back a block from ``allocate(byteCount:)`` of the same `byteCount`.
    static func release(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        guard isMapped(capacity: byteCount) else { return free(pointer) }
        #if os(Linux)
        munmap(pointer, mappedLength(byteCount))
        #else
        free(pointer)
        #endif
    }

    private static func mappedLength(_ byteCount: Int) -> Int {
        (byteCount + hugePageSize - 1) / hugePageSize * hugePageSize
    }
}
