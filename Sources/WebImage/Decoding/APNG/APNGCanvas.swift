/// The output buffer APNG frames are composited on, as the APNG specification describes: it starts fully
/// transparent black; each frame is drawn into its rectangle with its blend op; after the frame is shown, its
/// dispose op is applied before the next frame is drawn.
///
/// Pixels are RGBA8 with straight alpha, like ``PixelBuffer``. ``APNGBlend/over`` is the Porter–Duff "over"
/// computed on straight alpha and rounded to nearest from the exact fractions:
///
///     outA·255² = srcA·255 + dstA·(255 − srcA)            (stored as round(that / 255))
///     outC      = (srcC·srcA·255 + dstC·dstA·(255 − srcA)) / (outA·255²)
///
/// so a half-transparent pixel over another half-transparent one keeps both colours' weights and the alpha
/// grows; a transparent source pixel leaves the canvas as it was.
struct APNGCanvas {
    let size: PixelSize
    private var pixels: [UInt8]
    /// The disposal of the frame last drawn, applied when the next one is drawn.
    private var pending: (rect: PixelRect, disposal: APNGDisposal)?
    /// What the last frame's rectangle held before it was drawn, kept for ``APNGDisposal/previous`` only.
    private var saved: [UInt8] = []

    /// A transparent canvas of `size`, which the caller has checked against the limits.
    init(size: PixelSize) {
        self.size = size
        pixels = [UInt8](repeating: 0, count: size.width * size.height * PixelBuffer.bytesPerPixel)
    }

    /// Applies the previous frame's disposal, then draws `frame` (which is `control.rect.size` large, inside
    /// the canvas) with `control`'s blend op. The first frame of an animation may say
    /// ``APNGDisposal/previous``: what it restores is the transparent start, which is the same as
    /// ``APNGDisposal/background``, as the specification asks.
    mutating func draw(_ frame: PixelBuffer, control: APNGFrameControl) {
        applyPendingDisposal()
        let rect = control.rect
        if control.disposal == .previous { saved = copy(rect) }
        pending = (rect, control.disposal)
        let rowBytes = rect.width * PixelBuffer.bytesPerPixel
        let canvasRowBytes = size.width * PixelBuffer.bytesPerPixel
        frame.withUnsafeBytes { source in
            pixels.withUnsafeMutableBytes { canvas in
                for row in 0..<rect.height {
                    let from = UnsafeRawBufferPointer(rebasing: source[(row * rowBytes)..<((row + 1) * rowBytes)])
                    let start = (rect.y + row) * canvasRowBytes + rect.x * PixelBuffer.bytesPerPixel
                    let to = UnsafeMutableRawBufferPointer(rebasing: canvas[start..<(start + rowBytes)])
                    switch control.blend {
                    case .source: to.copyMemory(from: from)
                    case .over: Self.composite(from, over: to)
                    }
                }
            }
        }
    }

    /// The canvas as it is now, as a new pixel buffer.
    func snapshot() throws -> PixelBuffer {
        try PixelBuffer(width: size.width, height: size.height) { destination in
            pixels.withUnsafeBytes { destination.copyMemory(from: $0) }
        }
    }

    /// Whether some canvas pixel is less than opaque.
    var containsTransparency: Bool {
        pixels.withUnsafeBytes { bytes in
            stride(from: 3, to: bytes.count, by: 4).contains { bytes[$0] != 255 }
        }
    }

    /// One row of `source` over the same number of `destination` pixels; see the type's description.
    private static func composite(_ source: UnsafeRawBufferPointer, over destination: UnsafeMutableRawBufferPointer) {
        var index = 0
        while index < source.count {
            let sourceAlpha = UInt32(source[index + 3])
            let destinationAlpha = UInt32(destination[index + 3])
            if sourceAlpha == 255 || destinationAlpha == 0 {
                if sourceAlpha != 0 {
                    for channel in index..<(index + 4) { destination[channel] = source[channel] }
                }
            } else if sourceAlpha != 0 {
                let sourceWeight = sourceAlpha * 255
                let destinationWeight = destinationAlpha * (255 - sourceAlpha)
                let total = sourceWeight + destinationWeight  // outA · 255, at most 255²
                for channel in index..<(index + 3) {
                    let sum = UInt32(source[channel]) * sourceWeight + UInt32(destination[channel]) * destinationWeight
                    destination[channel] = UInt8(truncatingIfNeeded: (sum + total / 2) / total)
                }
                destination[index + 3] = UInt8(truncatingIfNeeded: (total + 127) / 255)
            }
            index += 4
        }
    }

    private mutating func applyPendingDisposal() {
        guard let (rect, disposal) = pending else { return }
        pending = nil
        switch disposal {
        case .none:
            break
        case .background:
            forEachRow(of: rect) { row, _ in row.initializeMemory(as: UInt8.self, repeating: 0) }
        case .previous:
            let saved = self.saved
            saved.withUnsafeBytes { saved in
                forEachRow(of: rect) { row, number in
                    let start = number * row.count
                    row.copyMemory(from: UnsafeRawBufferPointer(rebasing: saved[start..<(start + row.count)]))
                }
            }
            self.saved = []
        }
    }

    /// The bytes `rect` covers, row after row.
    private func copy(_ rect: PixelRect) -> [UInt8] {
        var region: [UInt8] = []
        region.reserveCapacity(rect.width * rect.height * PixelBuffer.bytesPerPixel)
        let rowBytes = rect.width * PixelBuffer.bytesPerPixel
        for row in 0..<rect.height {
            let start = ((rect.y + row) * size.width + rect.x) * PixelBuffer.bytesPerPixel
            region.append(contentsOf: pixels[start..<(start + rowBytes)])
        }
        return region
    }

    /// Calls `body` with each row of `rect` in the canvas and the row's number within `rect`.
    private mutating func forEachRow(of rect: PixelRect, _ body: (UnsafeMutableRawBufferPointer, Int) -> Void) {
        let rowBytes = rect.width * PixelBuffer.bytesPerPixel
        let width = size.width
        pixels.withUnsafeMutableBytes { canvas in
            for row in 0..<rect.height {
                let start = ((rect.y + row) * width + rect.x) * PixelBuffer.bytesPerPixel
                body(UnsafeMutableRawBufferPointer(rebasing: canvas[start..<(start + rowBytes)]), row)
            }
        }
    }
}
