import Foundation

/// File names for `fetch --out`, per the contract: the URL's last path component; a short hash of the URL when it
/// has none; `-2`, `-3` … before the extension when a name repeats within one run.
///
/// Names depend only on the URLs and their order, so a run's files are the same whichever load finishes first.
struct OutputNaming {
    private var used: Set<String> = []

    /// The name for the next request of `url`. `hashExtension` is added to hashed names (they have no extension
    /// of their own), e.g. the format's usual one once the image is known.
    mutating func name(for url: URL, hashExtension: String? = nil) -> String {
        let base = Self.baseName(for: url, hashExtension: hashExtension)
        var candidate = base
        var number = 2
        while used.contains(candidate) {
            candidate = Self.numbered(base, number)
            number += 1
        }
        used.insert(candidate)
        return candidate
    }

    /// The last path component when it is a usable file name, else the URL's hash (plus `hashExtension`).
    static func baseName(for url: URL, hashExtension: String?) -> String {
        // The encoded path's last non-empty segment, then decoded (so `%2F` stays inside the name):
        // `https://h/` and `data:` URLs have none.
        let segments = url.scheme?.lowercased() == "data" ? [] : url.path(percentEncoded: true).split(separator: "/")
        let component = segments.last.map { $0.removingPercentEncoding ?? String($0) } ?? ""
        // A percent-encoded slash or NUL must not reach the file system; "." and ".." name no file.
        let cleaned = component.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
        if !cleaned.isEmpty, cleaned != ".", cleaned != ".." { return cleaned }
        return shortHash(url.absoluteString) + (hashExtension.map { "." + $0 } ?? "")
    }

    /// `name` with `-number` before its extension: `a.jpg` → `a-2.jpg`, `a` → `a-2`, `.hidden` → `.hidden-2`.
    static func numbered(_ name: String, _ number: Int) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name)-\(number)" }
        return "\(name[..<dot])-\(number)\(name[dot...])"
    }

    /// 16 hex digits of the 64-bit FNV-1a hash of `text`'s UTF-8 bytes: short, stable across runs and machines.
    static func shortHash(_ text: String) -> String {
        let hash = text.utf8.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
