/// What happens to a GIF frame's rectangle after the frame was shown (the graphic control extension's disposal).
enum GIFDisposal: Equatable {
    /// Leave the frame in place (disposal 0 "unspecified", 1 "do not dispose", and the reserved values 4–7).
    case none
    /// Clear the frame's rectangle to transparent before the next frame (disposal 2). Browsers clear to
    /// transparent rather than to the header's background colour, and so do we.
    case background
    /// Put back what the rectangle held before the frame was drawn (disposal 3).
    case previous

    /// The same disposal in the terms of ``CanvasOpacity``.
    var canvasDisposal: CanvasOpacity.Disposal {
        switch self {
        case .none: .keep
        case .background: .clearToTransparent
        case .previous: .restorePrevious
        }
    }

    /// The disposal named by the 3-bit field of a graphic control extension.
    init(code: Int) {
        switch code {
        case 2: self = .background
        case 3: self = .previous
        default: self = .none
        }
    }
}

/// The full-size canvas GIF frames are composited on, the way browsers do it: it starts transparent, each frame
/// draws its rectangle (clipped to the canvas) skipping its transparent index, and the previous frame's disposal
/// is applied before the next one is drawn.
///
/// Usage per frame: ``beginFrame(rect:disposal:hasTransparentIndex:)``, then
/// ``drawRow(_:row:frameX:palette:transparentIndex:)`` for each row in any order, then ``endFrame()``; then
/// ``snapshot()`` gives the composited frame.
struct GIFCanvas {
    /// The canvas size (the logical screen).
    let size: PixelSize
    /// Packed RGBA pixels, rows top to bottom.
    private var pixels: [UInt32]
    /// The current frame's rectangle clipped to the canvas.
    private var frame = PixelRect(x: 0, y: 0, width: 0, height: 0)
    private var frameDisposal = GIFDisposal.none
    private var frameCoversCanvas = false
    private var frameHasTransparentIndex = false
    /// What the current frame's rectangle held before it was drawn, kept only for `.previous` disposal.
    private var savedRegion: [UInt32] = []
    private var savedRegionWasOpaque = false
    /// The disposal to apply before the next frame.
    private var pending: (rect: PixelRect, disposal: GIFDisposal)?
    /// True when every canvas pixel is certainly opaque, so a transparency scan can be skipped.
    private(set) var isKnownOpaque = false

    /// A transparent canvas of `size` (which the caller has checked against the limits).
    init(size: PixelSize) {
        self.size = size
        pixels = [UInt32](repeating: 0, count: size.width * size.height)
    }

    /// Applies the previous frame's disposal and prepares to draw a frame in `rect` (canvas coordinates, may reach
    /// outside). Returns the part of `rect` inside the canvas.
    @discardableResult
    mutating func beginFrame(rect: PixelRect, disposal: GIFDisposal, hasTransparentIndex: Bool) -> PixelRect {
        applyPendingDisposal()
        frame = rect.clamped(to: size)
        frameDisposal = disposal
        frameHasTransparentIndex = hasTransparentIndex
        frameCoversCanvas = frame.width == size.width && frame.height == size.height
        if disposal == .previous {
            savedRegion = copyRegion(frame)
            savedRegionWasOpaque = isKnownOpaque
        }
        return frame
    }

    /// Draws one row of palette indices. `row` counts from the top of the frame's unclipped rectangle and
    /// `frameX` is that rectangle's left edge; parts outside the canvas are dropped.
    mutating func drawRow(
        _ indices: UnsafeBufferPointer<UInt8>, row y: Int, frameX: Int, palette: GIFPalette, transparentIndex: Int?
    ) {
        guard y >= 0, y < size.height, frameX < size.width else { return }
        let visibleCount = min(indices.count, size.width - frameX)
        guard visibleCount > 0 else { return }
        let rowStart = y * size.width + frameX
        pixels.withUnsafeMutableBufferPointer { canvas in
            palette.draw(UnsafeBufferPointer(rebasing: indices[..<visibleCount]),
                         into: canvas.baseAddress! + rowStart, transparentIndex: transparentIndex)
        }
    }

    /// Finishes the current frame: its disposal will apply when the next frame begins.
    mutating func endFrame() {
        if frameCoversCanvas && !frameHasTransparentIndex { isKnownOpaque = true }
        pending = (frame, frameDisposal)
    }

    /// Whether some canvas pixel is less than opaque (a scan, skipped when the canvas is known to be opaque).
    var containsTransparency: Bool {
        if isKnownOpaque { return false }
        let opaque = RGBA(0, 0, 0, 255).packed
        return pixels.withUnsafeBufferPointer { canvas in
            canvas.contains { $0 & opaque != opaque }
        }
    }

    /// Bytes of memory the canvas holds: its pixels plus the region saved for a "previous" disposal.
    var heldByteCount: Int { (pixels.count + savedRegion.count) * MemoryLayout<UInt32>.stride }

    /// The canvas as it is now, as a new pixel buffer.
    func snapshot() throws -> PixelBuffer {
        try PixelBuffer(width: size.width, height: size.height) { destination in
            pixels.withUnsafeBytes { destination.copyMemory(from: $0) }
        }
    }

    private mutating func applyPendingDisposal() {
        guard let (rect, disposal) = pending else { return }
        pending = nil
        guard rect.width > 0, rect.height > 0 else { return }
        switch disposal {
        case .none:
            break
        case .background:
            fill(rect, with: 0)
            isKnownOpaque = false
        case .previous:
            restoreRegion(rect)
            isKnownOpaque = savedRegionWasOpaque
        }
    }

    private func copyRegion(_ rect: PixelRect) -> [UInt32] {
        var region: [UInt32] = []
        region.reserveCapacity(rect.width * rect.height)
        for y in rect.y..<(rect.y + rect.height) {
            let start = y * size.width + rect.x
            region.append(contentsOf: pixels[start..<(start + rect.width)])
        }
        return region
    }

    private mutating func restoreRegion(_ rect: PixelRect) {
        guard savedRegion.count == rect.width * rect.height else { return }
        for row in 0..<rect.height {
            let start = (rect.y + row) * size.width + rect.x
            let source = row * rect.width
            pixels.replaceSubrange(start..<(start + rect.width), with: savedRegion[source..<(source + rect.width)])
        }
        savedRegion = []
    }

    private mutating func fill(_ rect: PixelRect, with value: UInt32) {
        for y in rect.y..<(rect.y + rect.height) {
            let start = y * size.width + rect.x
            pixels.replaceSubrange(start..<(start + rect.width), with: repeatElement(value, count: rect.width))
        }
    }
}
