/// One frame (or part of one) reduced to palette indices: what a GIF image block stores.
struct GIFIndexedImage {
    /// An opaque palette colour.
    struct Color: Hashable {
        var r: UInt8, g: UInt8, b: UInt8
    }

    /// Width of the indexed rectangle.
    let width: Int
    /// Height of the indexed rectangle.
    let height: Int
    /// The colours the indices refer to; at most 256 entries, including the transparent slot.
    var palette: [Color]
    /// The index written for transparent pixels, if any pixel is transparent.
    var transparentIndex: Int?
    /// One index per pixel, rows top to bottom.
    var indices: [UInt8]

    /// Pixels whose alpha is below this become the transparent index; all others are written opaque.
    static let alphaThreshold: UInt8 = 128

    /// Reduces the `rect` part of `pixels` to at most 256 colours.
    ///
    /// When the opaque pixels use at most 256 colours (255 when some pixel is transparent), the palette is exactly
    /// those colours and nothing is lost. Otherwise a median-cut palette is built and each pixel takes its nearest
    /// colour, with Floyd–Steinberg dithering when `dithering` is true. With `reservingTransparency` the result
    /// has a transparent index even when no pixel needs it.
    static func quantizing(
        _ pixels: PixelBuffer, rect: PixelRect, dithering: Bool, reservingTransparency: Bool = false
    ) -> GIFIndexedImage {
        pixels.withUnsafeBytes { bytes in
            let source = GIFPixelRegion(bytes: bytes, imageWidth: pixels.width, rect: rect)
            if let exact = exactPalette(of: source, reservingTransparency: reservingTransparency) { return exact }
            let hasTransparency = reservingTransparency || source.containsTransparency
            let palette = GIFMedianCut.palette(for: source, maxColors: hasTransparency ? 255 : 256)
            var mapper = GIFColorMapper(palette: palette)
            var indices = [UInt8](repeating: 0, count: rect.width * rect.height)
            let transparentIndex = hasTransparency ? palette.count : nil
            if dithering {
                mapper.mapWithDithering(source, transparentIndex: transparentIndex ?? 0, into: &indices)
            } else {
                mapper.map(source, transparentIndex: transparentIndex ?? 0, into: &indices)
            }
            let fullPalette = hasTransparency ? palette + [Color(r: 0, g: 0, b: 0)] : palette
            return GIFIndexedImage(
                width: rect.width, height: rect.height, palette: fullPalette, transparentIndex: transparentIndex,
                indices: indices)
        }
    }

    /// The lossless palette, or `nil` when the region has too many colours for one.
    private static func exactPalette(of source: GIFPixelRegion, reservingTransparency: Bool) -> GIFIndexedImage? {
        var table = GIFColorTable()
        var indices = [UInt8](repeating: 0, count: source.rect.width * source.rect.height)
        var transparentSeen = reservingTransparency
        var output = 0
        for y in 0..<source.rect.height {
            let row = source.row(y)
            for x in 0..<source.rect.width {
                let offset = x * 4
                if row[offset + 3] < alphaThreshold {
                    transparentSeen = true
                    indices[output] = 255  // fixed below, once the transparent index is known
                } else {
                    let color = Color(r: row[offset], g: row[offset + 1], b: row[offset + 2])
                    guard let index = table.index(of: color, insertingUpTo: 256) else { return nil }
                    indices[output] = UInt8(index)
                }
                output += 1
            }
        }
        var palette = table.colors
        var transparentIndex: Int?
        if transparentSeen {
            guard palette.count < 256 else { return nil }
            // Pixels were first marked 255; re-mark them now that the slot is known.
            let slot = palette.count
            palette.append(Color(r: 0, g: 0, b: 0))
            transparentIndex = slot
            var output = 0
            for y in 0..<source.rect.height {
                let row = source.row(y)
                for x in 0..<source.rect.width {
                    if row[x * 4 + 3] < alphaThreshold { indices[output] = UInt8(slot) }
                    output += 1
                }
            }
        }
        if palette.isEmpty { palette.append(Color(r: 0, g: 0, b: 0)) }
        return GIFIndexedImage(
            width: source.rect.width, height: source.rect.height, palette: palette,
            transparentIndex: transparentIndex, indices: indices)
    }
}

/// A rectangle of RGBA bytes inside a larger image, read row by row.
struct GIFPixelRegion {
    let bytes: UnsafeRawBufferPointer
    let imageWidth: Int
    let rect: PixelRect

    /// The bytes of row `y` of the region (4 per pixel, `rect.width` pixels).
    func row(_ y: Int) -> UnsafeRawBufferPointer {
        let start = ((rect.y + y) * imageWidth + rect.x) * 4
        return UnsafeRawBufferPointer(rebasing: bytes[start..<(start + rect.width * 4)])
    }

    /// Whether some pixel of the region falls under ``GIFIndexedImage/alphaThreshold``.
    var containsTransparency: Bool {
        for y in 0..<rect.height {
            let row = row(y)
            var offset = 3
            while offset < row.count {
                if row[offset] < GIFIndexedImage.alphaThreshold { return true }
                offset += 4
            }
        }
        return false
    }
}

/// A small open-addressing hash table from colours to palette slots, for finding out quickly whether an image
/// fits in 256 colours.
struct GIFColorTable {
    private var keys = [UInt32](repeating: 0, count: 1024)
    private var slots = [UInt16](repeating: 0, count: 1024)
    /// The colours in the order they were first seen.
    private(set) var colors: [GIFIndexedImage.Color] = []

    /// The slot of `color`, adding it when there is room for fewer than `limit` colours; `nil` when it would be
    /// colour number `limit + 1`.
    mutating func index(of color: GIFIndexedImage.Color, insertingUpTo limit: Int) -> Int? {
        // The top byte marks a used entry, so black is distinguishable from an empty one.
        let key = 0xFF00_0000 | UInt32(color.r) << 16 | UInt32(color.g) << 8 | UInt32(color.b)
        var position = Int((key &* 0x9E37_79B1) >> 22)
        while keys[position] != 0 {
            if keys[position] == key { return Int(slots[position]) }
            position = (position + 1) & 1023
        }
        guard colors.count < limit else { return nil }
        keys[position] = key
        slots[position] = UInt16(colors.count)
        colors.append(color)
        return colors.count - 1
    }
}
