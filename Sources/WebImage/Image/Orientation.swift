/// EXIF orientation: how the stored pixels must be turned to stand upright. Raw values are the EXIF tag values.
public enum Orientation: Int, Sendable, CaseIterable, Codable {
    /// Stored upright.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Upside down.
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Mirrored along the top-left to bottom-right diagonal (transpose).
    case leftMirrored = 5
    /// Stored turned 90° counter-clockwise: display turns it 90° clockwise.
    case right = 6
    /// Mirrored along the top-right to bottom-left diagonal (transverse).
    case rightMirrored = 7
    /// Stored turned 90° clockwise: display turns it 90° counter-clockwise.
    case left = 8

    /// Width and height trade places when this orientation is applied.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The displayed size of a stored bitmap of `size`.
    public func displayedSize(of size: PixelSize) -> PixelSize { swapsAxes ? size.transposed : size }
}

extension Orientation {
    /// Copies the pixels of a `stored` bitmap at `source` into `destination` as displayed: this orientation
    /// applied. `Pixel` is one whole pixel (four bytes for RGBA8, eight for RGBA16), so every depth turns alike.
    func copyDisplayed<Pixel>(_ source: UnsafePointer<Pixel>, stored: PixelSize,
                              into destination: UnsafeMutablePointer<Pixel>) {
        let w = stored.width, h = stored.height
        // Destination pixel (x, y) reads source index origin + x * columnStep + y * rowStep.
        let (origin, columnStep, rowStep): (Int, Int, Int) = switch self {
        case .up: (0, 1, w)
        case .upMirrored: (w - 1, -1, w)
        case .down: ((h - 1) * w + w - 1, -1, -w)
        case .downMirrored: ((h - 1) * w, 1, -w)
        case .leftMirrored: (0, w, 1)
        case .right: ((h - 1) * w, -w, 1)
        case .rightMirrored: ((h - 1) * w + w - 1, -w, -1)
        case .left: (w - 1, w, -1)
        }
        let output = displayedSize(of: stored)
        var next = destination
        for y in 0..<output.height {
            var index = origin + y * rowStep
            for _ in 0..<output.width {
                next.pointee = source[index]
                next += 1
                index += columnStep
            }
        }
    }
}

extension PixelBuffer {
    /// The pixels as they are to be displayed when stored with `orientation`: EXIF orientation applied.
    /// Also the primitive behind exact flips and quarter-turn rotations.
    public func applying(_ orientation: Orientation) throws -> PixelBuffer {
        if orientation == .up { return self }
        let output = orientation.displayedSize(of: size)
        return try withUnsafeBytes { sourceBytes in
            try PixelBuffer(width: output.width, height: output.height) { destinationBytes in
                orientation.copyDisplayed(sourceBytes.assumingMemoryBound(to: UInt32.self).baseAddress!, stored: size,
                                          into: destinationBytes.assumingMemoryBound(to: UInt32.self).baseAddress!)
            }
        }
    }
}
