import WebImage

/// imgproxy's `trim`: cuts away the rows and columns at the edges that are background, before anything else.
///
/// A pixel is background when its 3×3 median (edges repeated), taken per channel, is within ``threshold`` of the
/// background colour in every channel: libvips's `find_trim`, which imgproxy calls. The median keeps a speck of
/// noise in the border from stopping the trim. Transparent pixels are first composited over magenta, imgproxy's
/// transparency key (so a transparent border trims with the colour `FF00FF`, or with the top-left pixel when no
/// colour is given). An image that is background everywhere is left whole.
struct BorderTrim {
    /// How far (per channel, 0–255) the median may be from the background and still count as background.
    var threshold: Double
    /// The background colour; `nil` takes the top-left pixel's (after compositing over magenta).
    var color: RGBA?
    /// Cut the same amount from the left and the right: the smaller of the two.
    var equalHorizontal: Bool
    /// Cut the same amount from the top and the bottom: the smaller of the two.
    var equalVertical: Bool

    init(_ trim: ProcessingOptions.Trim) {
        threshold = trim.threshold
        color = trim.color
        equalHorizontal = trim.equalHorizontal
        equalVertical = trim.equalVertical
    }

    /// `image` (a still) without its background border.
    func transform(_ image: Image) throws -> Image {
        guard let rect = rect(in: image.pixels), rect.size != image.size else { return image }
        return try ImageTransformers.Crop(rect).transform(image)
    }

    /// The area that is kept, or `nil` when every pixel is background.
    func rect(in pixels: PixelBuffer) -> PixelRect? {
        let width = pixels.width, height = pixels.height
        // One byte per pixel: bits 0–2 say that red, green, blue lie above the background by more than the
        // threshold, bits 3–5 that they lie below it by more. A median is out of range exactly when five of
        // its nine values are out of range the same way, so the bytes are all the median needs.
        var flags = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeBytes { raw in
            let source = raw.bindMemory(to: UInt8.self).baseAddress!
            let background = color.map { (Int($0.r), Int($0.g), Int($0.b)) } ?? Self.flattened(source)
            // Channel values are whole numbers: "above b + t" is "at least floor(b + t) + 1".
            func above(_ value: Int) -> Int { Int((Double(value) + threshold).rounded(.down)) + 1 }
            func below(_ value: Int) -> Int { Int((Double(value) - threshold).rounded(.up)) - 1 }
            let high = (above(background.0), above(background.1), above(background.2))
            let low = (below(background.0), below(background.1), below(background.2))
            flags.withUnsafeMutableBufferPointer { flags in
                for index in 0..<width * height {
                    let (red, green, blue) = Self.flattened(source + index &* 4)
                    var bits: UInt8 = red >= high.0 ? 1 : 0
                    if green >= high.1 { bits |= 2 }
                    if blue >= high.2 { bits |= 4 }
                    if red <= low.0 { bits |= 8 }
                    if green <= low.1 { bits |= 16 }
                    if blue <= low.2 { bits |= 32 }
                    flags[index] = bits
                }
            }
        }
        return flags.withUnsafeBufferPointer { flags -> PixelRect? in
            let grid = FlagGrid(flags: flags, width: width, height: height)
            guard let top = (0..<height).first(where: { grid.rowHasContent($0, columns: 0..<width) }) else {
                return nil
            }
            let bottom = (top..<height).reversed().first { grid.rowHasContent($0, columns: 0..<width) }!
            let rows = top..<bottom + 1
            let left = (0..<width).first { grid.columnHasContent($0, rows: rows) }!
            let right = (left..<width).reversed().first { grid.columnHasContent($0, rows: rows) }!
            var rect = PixelRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
            if equalHorizontal {
                let cut = min(left, width - 1 - right)
                rect = PixelRect(x: cut, y: rect.y, width: width - 2 * cut, height: rect.height)
            }
            if equalVertical {
                let cut = min(top, height - 1 - bottom)
                rect = PixelRect(x: rect.x, y: cut, width: rect.width, height: height - 2 * cut)
            }
            return rect
        }
    }

    /// The pixel at `pixel` composited over magenta: whole 0–255 values of red, green and blue.
    @inline(__always)
    static func flattened(_ pixel: UnsafePointer<UInt8>) -> (Int, Int, Int) {
        let alpha = Int(pixel[3])
        if alpha == 255 { return (Int(pixel[0]), Int(pixel[1]), Int(pixel[2])) }
        let keyWeight = 255 * (255 - alpha)  // magenta's red and blue; its green is 0
        return ((Int(pixel[0]) * alpha + keyWeight + 127) / 255, (Int(pixel[1]) * alpha + 127) / 255,
                (Int(pixel[2]) * alpha + keyWeight + 127) / 255)
    }

    /// The per-pixel flags with the 3×3 median test.
    private struct FlagGrid {
        let flags: UnsafeBufferPointer<UInt8>
        let width: Int
        let height: Int
        /// Each flag byte with its six bits spread to six 4-bit counters, so nine neighbours add up at once.
        static let spread: [UInt32] = (0..<64).map { bits in
            (0..<6).reduce(UInt32(0)) { sum, bit in sum | (UInt32(bits >> bit) & 1) << (4 * bit) }
        }

        func rowHasContent(_ y: Int, columns: Range<Int>) -> Bool {
            Self.spread.withUnsafeBufferPointer { spread in columns.contains { isContent($0, y, spread) } }
        }

        func columnHasContent(_ x: Int, rows: Range<Int>) -> Bool {
            Self.spread.withUnsafeBufferPointer { spread in rows.contains { isContent(x, $0, spread) } }
        }

        /// Whether the median around (`x`, `y`) (edges repeated) is out of range in some channel and direction.
        @inline(__always)
        private func isContent(_ x: Int, _ y: Int, _ spread: UnsafeBufferPointer<UInt32>) -> Bool {
            let left = max(x - 1, 0), right = min(x + 1, width - 1)
            var counts: UInt32 = 0, any: UInt8 = 0
            func add(row: Int) {
                let line = row * width
                let a = flags[line + left], b = flags[line + x], c = flags[line + right]
                any |= a | b | c
                counts &+= spread[Int(a)] &+ spread[Int(b)] &+ spread[Int(c)]
            }
            add(row: max(y - 1, 0))
            add(row: y)
            add(row: min(y + 1, height - 1))
            guard any != 0 else { return false }
            // A counter (at most 9) is at least 5 exactly when adding 3 sets its top bit; no carry crosses over.
            return (counts &+ 0x33_3333) & 0x88_8888 != 0
        }
    }
}
