import Foundation

/// A parsed `Content-Range: bytes START-END/TOTAL` header (TOTAL may be `*`).
struct ContentRange: Equatable {
    let start: Int
    let end: Int
    let total: Int64?

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst("bytes ".count)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int(bounds[0]), let end = Int(bounds[1]), start <= end else { return nil }
        self.start = start
        self.end = end
        total = parts[1] == "*" ? nil : Int64(parts[1])
    }

    /// The first byte a `Range: bytes=START-` header asks for.
    static func start(ofRange header: String?) -> Int? {
        guard let header, header.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int(spec[..<dash].trimmingHTTPWhitespace())
    }
}
