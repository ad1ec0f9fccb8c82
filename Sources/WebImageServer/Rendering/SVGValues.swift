/// The attribute values and style sheets an SVG answered as SVG may keep: references only inside the document (or,
/// for an embedded picture, to a raster image in a `data:` URL), and styles that load and run nothing.
enum SVGValues {
    /// Raster types an `<image>` or `<feImage>` may embed as a `data:` URL: never SVG, which could carry script.
    private static let embeddableTypes: Set<String> = [
        "png", "jpeg", "jpg", "pjpeg", "gif", "webp", "avif", "bmp", "x-icon", "vnd.microsoft.icon", "jxl", "heic",
        "heif", "tiff",
    ]

    /// The reference to write for `value` in an `href` (or `xlink:href`) of the element named `element`, or `nil`
    /// when it may not stay: a fragment of this document (`#id`), or for `image` and `feImage` a raster `data:`
    /// URL. The value is returned as a browser's URL parser reads it (tabs and newlines anywhere dropped, controls
    /// and spaces trimmed at either end), so what was checked is what is written.
    static func allowedReference(_ value: String, in element: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in value.unicodeScalars where scalar != "\t" && scalar != "\n" && scalar != "\r" {
            scalars.append(scalar)
        }
        let isEdge: (Unicode.Scalar) -> Bool = { $0.value <= 0x20 }
        while let first = scalars.first, isEdge(first) { scalars.removeFirst() }
        while let last = scalars.last, isEdge(last) { scalars.removeLast() }
        let reference = String(scalars)
        if reference.hasPrefix("#") { return reference }
        guard element == "image" || element == "feImage" else { return nil }
        let lowered = reference.lowercased()
        guard lowered.hasPrefix("data:image/") else { return nil }
        let type = lowered.dropFirst("data:image/".count).prefix { $0 != ";" && $0 != "," }
        return embeddableTypes.contains(String(type)) ? reference : nil
    }

    /// Whether CSS (a `style` element's text, a `style` attribute, or any other attribute's value, since
    /// presentation attributes such as `fill` take `url(…)` too) loads nothing and runs nothing: every `url(…)`
    /// points into the document, and nothing else that fetches (`@import`, `image-set(…)`, …) or runs
    /// (`expression(…)`, `javascript:`) is there. A backslash refuses it: a CSS escape spells any of those
    /// (`\75 rl(`).
    static func isInert(css text: String) -> Bool {
        // Most values (numbers, colours, path data) hold none of the characters every refused form needs.
        guard text.utf8.contains(where: { "(:@\\".utf8.contains($0) }) else { return true }
        let lowered = text.lowercased()
        if lowered.contains("\\") { return false }
        let refused = ["@import", "expression(", "javascript:", "image-set(", "image(", "cross-fade(", "src("]
        if refused.contains(where: { lowered.contains($0) }) { return false }
        let bytes = Array(lowered.utf8), call = Array("url(".utf8)
        var index = 0
        while index + call.count <= bytes.count {
            guard bytes[index..<index + call.count].elementsEqual(call) else {
                index += 1
                continue
            }
            index += call.count
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(bytes[index]) { index += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                index += 1
            }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "#") else { return false }
        }
        return true
    }
}
