/// How urgent a load is. Work shared by several loads runs at the highest priority among them, and a load's
/// priority may change while it runs (``ImageTask/priority``): a cell scrolled into view goes from `.low` to
/// `.high`, and its waiting download moves up the queue.
public enum ImagePriority: Int, Sendable, Comparable, CaseIterable, Hashable {
    /// Behind everything else (prefetching).
    case low = 0
    /// The default.
    case normal = 1
    /// Ahead of everything else (what is on screen).
    case high = 2

    public static func < (lhs: ImagePriority, rhs: ImagePriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
