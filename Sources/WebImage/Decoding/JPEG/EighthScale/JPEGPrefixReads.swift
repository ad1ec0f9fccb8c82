import Foundation

/// DC frames read while a download was judged, kept for the decode of the same bytes: once a 4:2:0 file's DC scan
/// is in, ``JPEGPrefixScanner`` reads it to see whether its chroma can be predicted, and the prefix it then cuts
/// is decoded moments later by ``JPEGEighthScaleDecoder``. Reading it once took `webimage serve` from 51 to 76
/// thumbnails a second of a 12 MP progressive photo on two cores.
///
/// An entry is found only by the exact bytes it was read from (a read depends on nothing else), and taken when
/// found. Entries whose decode never comes (a download shared with a render that needed more, a decode in another
/// process) are pushed out, oldest first, by the bound; a decode that finds nothing reads its bytes itself.
enum JPEGPrefixReads {
    private struct Entry {
        let bytes: [UInt8]
        let frame: JPEGEighthScaleDecoder.Frame
        let tables: JPEGEighthScaleDecoder.Tables
        /// The bytes and the DC planes it holds.
        var cost: Int { bytes.count + frame.components.reduce(0) { $0 + $1.dc.count * 2 + $1.quarters.count * 8 } }
    }

    /// As many as the downloads that may stop early at once (the proxy's default 16), within a bound on memory
    /// that holds that many 12 MP photos' reads.
    static let countLimit = 16
    static let costLimit = 16 << 20

    private static let entries = Locked<[Entry]>([])

    /// Keeps what `bytes` (a prefix closed with an end-of-image marker) reads as.
    static func keep(_ frame: JPEGEighthScaleDecoder.Frame, _ tables: JPEGEighthScaleDecoder.Tables,
                     readFrom bytes: [UInt8]) {
        let entry = Entry(bytes: bytes, frame: frame, tables: tables)
        guard entry.cost <= costLimit else { return }
        // The evicted entries are released after the lock: freeing megabytes is not done while others wait.
        let evicted = entries.withLock { entries -> [Entry] in
            entries.append(entry)
            var total = entries.reduce(0) { $0 + $1.cost }
            var evicted: [Entry] = []
            while entries.count > countLimit || total > costLimit {
                let oldest = entries.removeFirst()
                total -= oldest.cost
                evicted.append(oldest)
            }
            return evicted
        }
        _ = evicted
    }

    /// What `bytes` read as when they were judged, removed from the store; `nil` when they were not kept.
    static func take(readFrom bytes: UnsafeRawBufferPointer)
        -> (JPEGEighthScaleDecoder.Frame, JPEGEighthScaleDecoder.Tables)? {
        guard let start = bytes.baseAddress else { return nil }
        let found = entries.withLock { entries -> Entry? in
            guard let index = entries.firstIndex(where: { entry in
                entry.bytes.count == bytes.count && memcmp(entry.bytes, start, bytes.count) == 0
            }) else { return nil }
            return entries.remove(at: index)
        }
        return found.map { ($0.frame, $0.tables) }
    }

    /// How many reads are kept now.
    static var count: Int { entries.withLock { $0.count } }
}
