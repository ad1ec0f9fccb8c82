/// Which caches an operation touches, or where a result came from: none, memory, disk, or all (both).
public struct ImageCacheType: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    /// Creates a set from its raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The memory cache.
    public static let memory = ImageCacheType(rawValue: 1 << 0)
    /// The disk cache.
    public static let disk = ImageCacheType(rawValue: 1 << 1)
    /// Neither: for a result, "not from a cache".
    public static let none: ImageCacheType = []
    /// Memory and disk.
    public static let all: ImageCacheType = [.memory, .disk]

    /// `none`, `memory`, `disk` or `all`: the names the `webimage` JSON output uses.
    public var description: String {
        switch self {
        case .none: "none"
        case .memory: "memory"
        case .disk: "disk"
        default: "all"
        }
    }
}

