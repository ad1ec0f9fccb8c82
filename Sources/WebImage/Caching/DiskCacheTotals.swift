#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension DiskCache {
    /// How many entries and bytes the main folder holds, as recorded in its totals file.
    ///
    /// Kept up to date by every process's stores and removals (each adds its changes at most once a second,
    /// and when it is released) and set from the folder itself by every sweep; see ``DiskCache`` for how far it
    /// can drift between sweeps.
    public struct Totals: Sendable, Hashable {
        /// Entry files.
        public var entries: Int
        /// Bytes of entry files, headers included.
        public var bytes: Int
        /// When a complete walk of the folder last set these numbers (seconds since 1970, by the cache's
        /// clock); `nil` when they have only been added up since the folder was created empty.
        public var surveyed: Double?

        /// Totals with these values.
        public init(entries: Int, bytes: Int, surveyed: Double? = nil) {
            self.entries = entries
            self.bytes = bytes
            self.surveyed = surveyed
        }
    }
}

/// The totals file, `.webimage-totals` in the cache folder: 48 bytes, read and rewritten in place under `flock`.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `WITOTAL1` |
/// | 8 | 8 | entries (Int64, little-endian) |
/// | 16 | 8 | bytes (Int64) |
/// | 24 | 8 | surveyed, seconds since 1970 (IEEE double bits; NaN for never) |
/// | 32 | 8 | reserved, zero |
/// | 40 | 8 | XXH64 of bytes 0..<40 |
///
/// Why in place rather than a temporary file renamed over it: a rename would give every update a new inode, and
/// `flock` (which serialises the read-modify-write of several processes) locks an inode. One `pwrite` of 48
/// bytes is never cut by `kill -9`; a power loss could tear it, and then the checksum fails, the totals read as
/// unknown, and the next sweep writes them again from the folder. The name starts with a dot, so it is never
/// taken for an entry (`DiskEntryName` only parses 64 hex digits) nor for a temporary file.
enum DiskTotalsFile {
    static let name = ".webimage-totals"
    static let length = 48
    private static let magic = Array("WITOTAL1".utf8)

    static func path(in folder: String) -> String { folder + "/" + name }

    static func encode(_ totals: DiskCache.Totals) -> [UInt8] {
        var bytes = magic
        for word in [UInt64(bitPattern: Int64(totals.entries)), UInt64(bitPattern: Int64(totals.bytes)),
                     (totals.surveyed ?? .nan).bitPattern, 0] {
            withUnsafeBytes(of: word.littleEndian) { bytes += $0 }
        }
        withUnsafeBytes(of: EntryChecksum.hash(bytes).littleEndian) { bytes += $0 }
        return bytes
    }

    /// The totals in `bytes`; `nil` when they are not a valid totals record.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> DiskCache.Totals? {
        guard bytes.count == length, bytes.prefix(8).elementsEqual(magic) else { return nil }
        func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        guard EntryChecksum.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<40])) == word(40) else { return nil }
        let entries = Int(Int64(bitPattern: word(8))), total = Int(Int64(bitPattern: word(16)))
        guard entries >= 0, total >= 0 else { return nil }
        let surveyed = Double(bitPattern: word(24))
        return DiskCache.Totals(entries: entries, bytes: total, surveyed: surveyed.isNaN ? nil : surveyed)
    }

    /// Reads the totals of `folder` under a shared lock: `nil` when the file is absent or not valid.
    static func read(folder: String) -> DiskCache.Totals? {
        guard case .success(let descriptor) = FileSystem.openForReading(path(in: folder)) else { return nil }
        defer { FileSystem.closeFile(descriptor) }
        guard FileSystem.lock(descriptor, exclusive: false) else { return nil }
        defer { FileSystem.unlock(descriptor) }
        return readRecord(descriptor)
    }

    /// Reads, changes and writes back the totals of `folder` under an exclusive lock, so that updates from
    /// several processes add up. `body` gets `nil` when the totals are unknown; leaving `nil` writes nothing.
    /// Returns what was written (or read, when nothing was); `nil` when the folder cannot be opened.
    @discardableResult
    static func update(folder: String, _ body: (inout DiskCache.Totals?) -> Void) -> DiskCache.Totals? {
        guard case .success(let descriptor) = FileSystem.openForUpdate(path(in: folder)) else { return nil }
        defer { FileSystem.closeFile(descriptor) }
        guard FileSystem.lock(descriptor, exclusive: true) else { return nil }
        defer { FileSystem.unlock(descriptor) }
        var totals = readRecord(descriptor)
        body(&totals)
        if let totals {
            let record = encode(DiskCache.Totals(entries: max(0, totals.entries), bytes: max(0, totals.bytes),
                                                 surveyed: totals.surveyed))
            _ = record.withUnsafeBytes { FileSystem.writeAll(descriptor, $0, at: 0) }
        }
        return totals
    }

    private static func readRecord(_ descriptor: Int32) -> DiskCache.Totals? {
        withUnsafeTemporaryAllocation(byteCount: length, alignment: 8) { buffer in
            FileSystem.readExactly(descriptor, into: buffer, at: 0) ? decode(UnsafeRawBufferPointer(buffer)) : nil
        }
    }
}
