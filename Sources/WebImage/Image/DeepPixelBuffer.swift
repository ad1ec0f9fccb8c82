/// One bitmap of RGBA pixels with 16 bits a sample: what a source of more than 8 bits a sample (16-bit PNG, 10-
/// and 12-bit AVIF, deep JPEG XL) holds, kept beside its 8-bit ``PixelBuffer`` when a decode asks for it
/// (``DecodeOptions/keepsHighBitDepth``), so that transformers and encoders that can work in 16 bits do.
///
/// The same conventions as ``PixelBuffer``: R, G, B, A; rows top to bottom, tightly packed; straight alpha.
/// Samples use the whole 16-bit range whatever the source's depth (a 10-bit 1023 is 65535);
/// ``significantBits`` says how many bits the source had, so an encoder can write as many. Immutable once made.
public struct DeepPixelBuffer: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The bits a sample had in the source (10, 12 or 16): what an encoder of a format with a choice of depths
    /// (AVIF) writes.
    public let significantBits: Int
    /// The samples' memory, from the same pool as ``PixelBuffer``'s.
    let storage: PixelStorage

    /// A buffer of `samples` (exactly `width * height * 4` of them).
    /// - Throws: `ImageError.Code.badImageData` for a wrong count, an empty size or a depth outside 9...16.
    public init(width: Int, height: Int, significantBits: Int = 16, samples: [UInt16]) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width <= 0 || height <= 0 || (!overflow && samples.count == pixels &* 4) else {
            throw ImageError(.badImageData, "expected \(width)x\(height)x4 samples, got \(samples.count)")
        }
        try self.init(width: width, height: height, significantBits: significantBits) { destination in
            _ = destination.initialize(from: samples)
        }
    }

    /// Allocates a `width` × `height` buffer and lets `initialize` write every sample of it (the memory handed
    /// over is not zeroed).
    /// - Throws: `ImageError.Code.badImageData` for an empty size or a depth outside 9...16,
    ///   `ImageError.Code.imageTooLarge` above ``DecodeLimits/default``'s pixel limit, and what `initialize`
    ///   throws.
    public init(width: Int, height: Int, significantBits: Int,
         initializingWith initialize: (UnsafeMutableBufferPointer<UInt16>) throws -> Void) throws {
        guard width > 0, height > 0, (9...16).contains(significantBits) else {
            throw ImageError(.badImageData, "a deep image needs a size and 9 to 16 bits, got \(width)x\(height), "
                                          + "\(significantBits) bits")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= DecodeLimits.default.maxPixels,
              let block = PixelMemoryPool.shared.allocate(byteCount: pixels * 8) else {
            throw ImageError(.imageTooLarge, "cannot allocate \(width)x\(height) deep pixels")
        }
        let storage = PixelStorage(pointer: block.pointer, capacity: block.capacity)
        try initialize(UnsafeMutableBufferPointer(
            start: block.pointer.bindMemory(to: UInt16.self, capacity: pixels * 4), count: pixels * 4))
        self.width = width
        self.height = height
        self.significantBits = significantBits
        self.storage = storage
    }

    /// Calls `body` with the samples, four a pixel, row after row (read-only).
    public func withUnsafeSamples<R, E: Error>(_ body: (UnsafeBufferPointer<UInt16>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(start: storage.pointer.assumingMemoryBound(to: UInt16.self),
                                     count: width * height * 4))
    }

    /// A copy of the samples, four a pixel, row after row. ``withUnsafeSamples(_:)`` reads them without copying.
    public var samples: [UInt16] { withUnsafeSamples { Array($0) } }

    /// The 8-bit pixels widened: each sample `v` becomes `v × 257` (so 255 is 65535).
    public init(widening pixels: PixelBuffer) throws {
        try self.init(width: pixels.width, height: pixels.height, significantBits: 16) { destination in
            pixels.withUnsafeBytes { source in
                for index in 0..<source.count { destination[index] = UInt16(source[index]) &* 257 }
            }
        }
    }

    /// Width and height.
    public var size: PixelSize { PixelSize(width: width, height: height) }
    /// Bytes of pixel data: eight a pixel.
    public var byteCount: Int { width * height * 8 }

    /// The pixel at column `x`, row `y` as R, G, B, A. Traps when out of bounds, like an array.
    public subscript(x: Int, y: Int) -> SIMD4<UInt16> {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(size)")
        return withUnsafeSamples { UnsafeRawPointer($0.baseAddress! + (y * width + x) * 4)
            .loadUnaligned(as: SIMD4<UInt16>.self) }
    }

    /// The same image in 8 bits a sample, each the nearest: round(v × 255 / 65535).
    public func eightBitPixels() throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height) { destination in
            withUnsafeSamples { source in
                for index in 0..<source.count {
                    destination[index] = UInt8(truncatingIfNeeded: (UInt32(source[index]) &* 255 &+ 32767) / 65535)
                }
            }
        }
    }

    /// A buffer of the same depth made by `initialize`, which writes every sample of a `size` bitmap.
    func sameDepth(_ size: PixelSize, _ initialize: (UnsafeMutableBufferPointer<UInt16>) throws -> Void) throws
        -> DeepPixelBuffer
    {
        try DeepPixelBuffer(width: size.width, height: size.height, significantBits: significantBits,
                            initializingWith: initialize)
    }

    /// Whether any pixel has alpha below 65535.
    public var containsTransparency: Bool {
        withUnsafeSamples { samples in
            var index = 3
            while index < samples.count {
                if samples[index] != .max { return true }
                index += 4
            }
            return false
        }
    }
}

extension DeepPixelBuffer {
    /// Same size, same depth, same samples.
    public static func == (lhs: DeepPixelBuffer, rhs: DeepPixelBuffer) -> Bool {
        guard lhs.width == rhs.width, lhs.height == rhs.height, lhs.significantBits == rhs.significantBits else {
            return false
        }
        return lhs.storage === rhs.storage
            || lhs.withUnsafeSamples { left in rhs.withUnsafeSamples { right in left.elementsEqual(right) } }
    }
}

extension ImageFrame {
    /// The frame's 8-bit pixels for a deep bitmap: `deep` kept beside its samples rounded to 8 bits.
    public init(deep: DeepPixelBuffer, duration: Double = 0) throws {
        self.init(pixels: try deep.eightBitPixels(), duration: duration)
        deepPixels = deep
    }
}
