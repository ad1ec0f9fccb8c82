import Foundation

/// Turns an ``Image`` into GIF bytes: palettes per frame (``GIFIndexedImage``), timing and looping, and for
/// animations only the part of each frame that changed.
///
/// Frame layout, chosen so that decoding gives back the frames as given:
/// - When no frame has transparent pixels, every frame is drawn over the previous one (disposal "none") and
///   frames after the first store only the rectangle that differs from the frame before.
/// - When some frame has transparent pixels, every frame is stored whole, declares a transparent index and is
///   disposed to background, so each one is drawn on a clear canvas and its transparent pixels stay transparent.
///
/// The first frame's palette is the global colour table; later frames carry their own local tables, so each
/// frame gets the best 256 colours for itself.
struct GIFEncoder {
    let dithering: Bool

    /// The largest width or height a GIF can record.
    static let maxDimension = 0xFFFF

    func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        var frames = options.firstFrameOnly ? [image.frames[0]] : image.frames
        if let limit = options.maxPixelSize, limit > 0 {
            frames = try frames.map { frame in
                var frame = frame
                frame.pixels = try Self.fitting(frame.pixels, inside: limit)
                return frame
            }
        }
        let size = frames[0].pixels.size
        guard size.width <= Self.maxDimension, size.height <= Self.maxDimension else {
            throw ImageError(.imageTooLarge, "GIF stores at most \(Self.maxDimension) pixels a side, not \(size)")
        }
        guard frames.allSatisfy({ $0.pixels.size == size }) else {
            throw ImageError(.badImageData, "GIF: every frame of an animation must have the same size")
        }
        let animated = frames.count > 1
        let anyTransparency = frames.contains { Self.hasTransparentPixels($0.pixels) }

        let writer = try GIFFileWriter()
        var previous: PixelBuffer?
        for (number, frame) in frames.enumerated() {
            let rect = (animated && !anyTransparency)
                ? previous.map { Self.changedRect(from: $0, to: frame.pixels) } ?? Self.wholeRect(size)
                : Self.wholeRect(size)
            // Every frame of an animation with transparency declares a transparent index: decoders that dispose
            // to "background" with the disposed frame's transparency (Pillow) then clear to transparent too.
            let indexed = GIFIndexedImage.quantizing(
                frame.pixels, rect: rect, dithering: dithering, reservingTransparency: animated && anyTransparency)
            if number == 0 {
                try writer.putScreen(size: size, palette: indexed.palette)
                if animated && image.loopCount != 1 { try writer.putLoopCount(max(image.loopCount, 0)) }
            }
            if animated || indexed.transparentIndex != nil {
                try writer.putGraphicControl(
                    delayCentiseconds: animated ? Self.centiseconds(frame.duration) : 0,
                    disposal: anyTransparency ? .background : .none,
                    transparentIndex: indexed.transparentIndex)
            }
            try writer.putImage(indexed, at: (rect.x, rect.y), localPalette: number > 0)
            previous = frame.pixels
        }
        return try writer.finish()
    }

    /// A frame's delay in the centiseconds GIF counts in, rounded, within 0...65535.
    static func centiseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min((seconds * 100).rounded(), 65535))
    }

    private static func wholeRect(_ size: PixelSize) -> PixelRect {
        PixelRect(x: 0, y: 0, width: size.width, height: size.height)
    }

    private static func hasTransparentPixels(_ pixels: PixelBuffer) -> Bool {
        pixels.withUnsafeBytes { bytes in
            GIFPixelRegion(bytes: bytes, imageWidth: pixels.width, rect: wholeRect(pixels.size)).containsTransparency
        }
    }

    /// The smallest rectangle outside which `next` equals `previous`; a single pixel when they are identical
    /// (a GIF image cannot be empty).
    static func changedRect(from previous: PixelBuffer, to next: PixelBuffer) -> PixelRect {
        previous.withUnsafeBytes { old in
            next.withUnsafeBytes { new in
                let oldPixels = old.bindMemory(to: UInt32.self), newPixels = new.bindMemory(to: UInt32.self)
                let width = next.width
                var top = Int.max, bottom = -1, left = Int.max, right = -1
                for y in 0..<next.height {
                    let start = y * width
                    var x = 0
                    while x < width && oldPixels[start + x] == newPixels[start + x] { x += 1 }
                    guard x < width else { continue }
                    var last = width - 1
                    while oldPixels[start + last] == newPixels[start + last] { last -= 1 }
                    top = min(top, y)
                    bottom = y
                    left = min(left, x)
                    right = max(right, last)
                }
                guard bottom >= 0 else { return PixelRect(x: 0, y: 0, width: 1, height: 1) }
                return PixelRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
            }
        }
    }

    /// `pixels` scaled down to fit inside `limit` × `limit`, or unchanged when it already fits.
    private static func fitting(_ pixels: PixelBuffer, inside limit: Int) throws -> PixelBuffer {
        let longest = max(pixels.width, pixels.height)
        guard longest > limit else { return pixels }
        let ratio = Double(limit) / Double(longest)
        let target = PixelSize(
            width: max(1, Int((Double(pixels.width) * ratio).rounded())),
            height: max(1, Int((Double(pixels.height) * ratio).rounded())))
        return try pixels.resized(to: target)
    }
}
