/// The display scale named in a file name or URL path, as SDWebImage reads it: `icon@2x.png` is 2, `icon@3x` is 3.
package enum ScaleFactor {
    /// The scale in `name` (a file name, path or URL string), or 1 when it names none.
    package static func fromName(_ name: String) -> Double {
        // Only the last path component counts, and never the query or fragment.
        let path = name.split(separator: "?", maxSplits: 1).first.map(String.init) ?? name
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let stem = file.lastIndex(of: ".").map { String(file[..<$0]) } ?? file
        for candidate in [3, 2] where stem.hasSuffix("@\(candidate)x") { return Double(candidate) }
        return 1
    }
}
