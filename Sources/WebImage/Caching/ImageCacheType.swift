/// Which caches an operation touches, or where a result came from: none, memory, disk, or all (both); a result
/// can also come from a remote tier (a cache server behind the disk, such as `RedisImageCache`).
public struct ImageCacheType: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    /// Creates a set from its raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The memory cache.
    public static let memory = ImageCacheType(rawValue: 1 << 0)
    /// The disk cache.
    public static let disk = ImageCacheType(rawValue: 1 << 1)
    /// A cache server shared with other processes: for a result, "from the remote tier". As the scope of an
    /// operation it needs no flag of its own: the bytes tiers (disk and any remote tier behind it) are ``disk``.
    public static let remote = ImageCacheType(rawValue: 1 << 2)
    /// Neither: for a result, "not from a cache".
    public static let none: ImageCacheType = []
    /// Memory and disk.
    public static let all: ImageCacheType = [.memory, .disk]

    /// `none`, `memory`, `disk`, `remote` or `all`: the names the `webimage` JSON output uses.
    public var description: String {
        switch self {
        case .none: "none"
        case .memory: "memory"
        case .disk: "disk"
        case .remote: "remote"
        default: "all"
        }
    }
}

