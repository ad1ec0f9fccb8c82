import WebImage

/// Draws a ``ProxyWatermark`` over a result as imgproxy's `watermark` option does: scaled (when asked) to fit
/// a box of `scale` times the result's size, then either placed once by a gravity (offsets in pixels times the
/// device pixel ratio; it may hang over the edge) or, for `re`, repeated over the whole result in a grid centred
/// on it, the offsets being the gaps between copies. Its alpha is multiplied by the option's opacity times the
/// watermark's own (imgproxy multiplies the two) and it is composited over each frame; a result without alpha
/// stays without.
struct WatermarkOverlay {
    var mark: ProxyWatermark
    var options: ProcessingOptions.Watermark
    /// The device pixel ratio in effect (``ResizePlan/dprScale``): pixel offsets are multiplied by it.
    var dpr: Double

    func transform(_ image: Image) throws -> Image {
        let combined = min(max(options.opacity, 0), 1) * min(max(mark.opacity, 0), 1)
        guard combined > 0 else { return image }
        let size = image.size
        var tile = try scaledMark(for: size)
        let origin: (x: Int, y: Int)
        if let anchor = options.position {
            let gravity = Gravity(anchor, x: options.x, y: options.y)
            let rect = GravityPlacement.rect(of: tile.size, in: size, gravity: gravity, dpr: dpr, allowsOverflow: true)
            origin = (rect.x, rect.y)
        } else {
            tile = try padded(tile, for: size)
            let across = Self.odd((size.width + tile.width - 1) / tile.width)
            let down = Self.odd((size.height + tile.height - 1) / tile.height)
            // The grid of copies is centred: its (odd) number of copies sticks out equally on both sides.
            origin = (-(across * tile.width - size.width) / 2, -(down * tile.height - size.height) / 2)
        }
        let opacity = Int((combined * 256).rounded())
        let repeats = options.position == nil
        return try image.mappingFrames(deep: { frame in
            try DeepPixelBuffer(width: frame.width, height: frame.height,
                                significantBits: frame.significantBits) { destination in
                frame.withUnsafeSamples { _ = destination.initialize(fromContentsOf: $0) }
                Self.composite(tile, over: destination.baseAddress!, size: frame.size, at: origin,
                               repeating: repeats, opacity: opacity)
            }
        }) { frame in
            try frame.withUnsafeBytes { frameBytes in
                try PixelBuffer(width: frame.width, height: frame.height) { output in
                    let destination = output.bindMemory(to: UInt8.self).baseAddress!
                    destination.update(from: frameBytes.bindMemory(to: UInt8.self).baseAddress!, count: output.count)
                    Self.composite(tile, over: destination, size: frame.size, at: origin, repeating: repeats,
                                   opacity: opacity)
                }
            }
        }
    }

    /// The watermark at its own size, or fitted (enlarged if need be) into `scale` times the result's size.
    private func scaledMark(for size: PixelSize) throws -> PixelBuffer {
        guard options.scale > 0 else { return mark.pixels }
        var fit = ProcessingOptions()
        fit.resizingType = .fit
        fit.enlarge = true
        fit.width = max(1, Int((Double(size.width) * options.scale).rounded(.toNearestOrEven)))
        fit.height = max(1, Int((Double(size.height) * options.scale).rounded(.toNearestOrEven)))
        let target = ResizePlan(source: mark.pixels.size, options: fit).scaledSize
        guard target != mark.pixels.size else { return mark.pixels }
        return try ImageTransformers.Resize(to: target, fit: .fill).transform(Image(pixels: mark.pixels)).pixels
    }

    /// The repeated watermark with its gaps: half of each gap on either side of the copy.
    private func padded(_ tile: PixelBuffer, for size: PixelSize) throws -> PixelBuffer {
        func gap(_ value: Double, of side: Int) -> Int {
            let pixels = abs(value) >= 1 ? value * dpr : value * Double(side)
            return max(0, Int(pixels.rounded(.toNearestOrEven)))
        }
        let gapX = gap(options.x, of: size.width), gapY = gap(options.y, of: size.height)
        guard gapX > 0 || gapY > 0 else { return tile }
        let canvas = PixelSize(width: tile.width + gapX, height: tile.height + gapY)
        return try CanvasPlacement.embed(Image(pixels: tile, hasAlpha: true), in: canvas, at: (gapX / 2, gapY / 2))
            .pixels
    }

    private static func odd(_ count: Int) -> Int { count % 2 == 0 ? count + 1 : count }

    /// `mark` composited over the RGBA samples at `frame` (`size`, 8 or 16 bits) at `origin` (once, or repeated
    /// from there in both directions), `mark`'s alpha times `opacity` / 256.
    static func composite<Sample: FixedWidthInteger & UnsignedInteger>(
        _ mark: PixelBuffer, over frame: UnsafeMutablePointer<Sample>, size: PixelSize, at origin: (x: Int, y: Int),
        repeating: Bool, opacity: Int
    ) {
        let width = size.width, height = size.height, markWidth = mark.width, markHeight = mark.height
        // The rows and columns of the frame the watermark covers.
        let rows = repeating ? 0..<height : max(0, origin.y)..<min(height, origin.y + markHeight)
        let columns = repeating ? 0..<width : max(0, origin.x)..<min(width, origin.x + markWidth)
        guard !rows.isEmpty, !columns.isEmpty else { return }
        mark.withUnsafeBytes { markBytes in
            let overlay = markBytes.bindMemory(to: UInt8.self).baseAddress!
            for y in rows {
                // Modulo that stays positive: the grid starts left of and above the frame.
                let markY = ((y - origin.y) % markHeight + markHeight) % markHeight
                var markX = ((columns.lowerBound - origin.x) % markWidth + markWidth) % markWidth
                let markRow = overlay + markY * markWidth * 4
                var pixel = frame + (y * width + columns.lowerBound) * 4
                for _ in columns {
                    blend(markRow + markX * 4, into: pixel, opacity: opacity)
                    pixel += 4
                    markX += 1
                    if markX == markWidth { markX = 0 }
                }
            }
        }
    }

    /// Source-over of one straight-alpha 8-bit pixel onto another of 8 or 16 bits.
    @inline(__always)
    private static func blend<Sample: FixedWidthInteger & UnsignedInteger>(
        _ top: UnsafePointer<UInt8>, into bottom: UnsafeMutablePointer<Sample>, opacity: Int
    ) {
        let alpha = (Int(top[3]) * opacity + 128) >> 8
        guard alpha > 0 else { return }
        let full = Int(Sample.max), widen = full / 255  // the mark's samples in the frame's scale
        let rest = 255 - alpha, bottomAlpha = Int(bottom[3])
        if bottomAlpha == full {
            for channel in 0..<3 {
                bottom[channel] = Sample((Int(top[channel]) * widen * alpha + Int(bottom[channel]) * rest + 127) / 255)
            }
            return
        }
        // Weights in 255ths of the full scale: the top counts alpha × full, the bottom its alpha × what the top
        // leaves.
        let topWeight = alpha * full, bottomWeight = bottomAlpha * rest
        let total = topWeight + bottomWeight
        for channel in 0..<3 {
            bottom[channel] = Sample((Int(top[channel]) * widen * topWeight + Int(bottom[channel]) * bottomWeight
                                      + total / 2) / total)
        }
        bottom[3] = Sample((total + 127) / 255)
    }
}
