#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes of entries by age since last access, in 2 048 buckets whose width grows with age (each about 1.3 %
/// wider than the one before, from 10 ms to about 65 years), so a sweep finds the least recently used entries
/// of a million-entry folder with 16 KB of memory instead of a sorted list of every entry.
///
/// The size sweep walks the folder twice: the first walk fills the histogram, ``cut(toFree:)`` picks the bucket
/// where the oldest entries add up to the bytes to free, and the second walk deletes every entry older than
/// that bucket and, from the bucket itself, only as many bytes as are still needed. Entries whose ages differ by
/// more than a bucket's width are removed in least-recently-used order exactly; within a bucket, in folder order.
struct DiskAgeHistogram {
    static let bucketCount = 2048
    /// The first bucket holds every age up to this many seconds (and entries from the future).
    static let smallestAge = 0.01
    /// Each bucket's upper bound over the one before: 2 048 buckets span 10 ms to about 65 years (older ages
    /// share the last).
    static let growth = 1.0128

    private(set) var bytes = [Int](repeating: 0, count: bucketCount)

    /// The bucket of an entry last used `age` seconds ago.
    static func bucket(ofAge age: Double) -> Int {
        guard age > smallestAge else { return 0 }
        let index = 1 + Int(log(age / smallestAge) / log(growth))
        return min(index, bucketCount - 1)
    }

    mutating func add(age: Double, size: Int) {
        bytes[Self.bucket(ofAge: age)] += size
    }

    /// Where to cut to free `needed` bytes, oldest first: entries in buckets above `bucket` all go, and from
    /// `bucket` itself `budget` bytes (at least) go. `nil` when nothing needs freeing.
    func cut(toFree needed: Int) -> (bucket: Int, budget: Int)? {
        guard needed > 0 else { return nil }
        var older = 0
        for bucket in stride(from: Self.bucketCount - 1, through: 0, by: -1) {
            if older + bytes[bucket] >= needed { return (bucket, needed - older) }
            older += bytes[bucket]
        }
        return (0, needed - older)  // the folder holds less than the histogram counted: everything goes
    }
}
