/// One bitmap of RGBA pixels, 8 bits per channel.
///
/// Conventions, fixed for the whole library:
/// - channel order R, G, B, A; rows top to bottom; rows tightly packed (`bytesPerRow == width * 4`);
/// - **straight (not premultiplied) alpha**: what decoders produce and encoders expect. Code that blends or
///   filters (transformers, the resampler) premultiplies internally and converts back.
///
/// A buffer is immutable once made, so copies are cheap and safe to share between tasks. New pixels are
/// written once, inside ``init(width:height:initializingWith:)``.
public struct PixelBuffer: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    var storage: PixelStorage  // a var only so that uniqueness can be checked (mutateIfUniquelyOwned)

    /// Bytes per pixel: always 4 (RGBA8).
    public static let bytesPerPixel = 4

    /// Allocates a `width` × `height` buffer and lets `initialize` write every byte of it.
    ///
    /// The memory handed to `initialize` is **not zeroed** (it may be recycled): the closure must write all
    /// `width * height * 4` bytes. Throws `ImageError.Code.imageTooLarge` when the size overflows or memory
    /// cannot be had.
    public init(
        width: Int, height: Int,
        initializingWith initialize: (UnsafeMutableRawBufferPointer) throws -> Void
    ) throws {
        guard width > 0, height > 0 else {
            throw ImageError(.badImageData, "an image needs at least one pixel, got \(width)x\(height)")
        }
        let (pixels, overflowA) = width.multipliedReportingOverflow(by: height)
        let (byteCount, overflowB) = pixels.multipliedReportingOverflow(by: Self.bytesPerPixel)
        guard !overflowA, !overflowB, let block = PixelMemoryPool.shared.allocate(byteCount: byteCount) else {
            throw ImageError(.imageTooLarge, "cannot allocate \(width)x\(height) pixels")
        }
        let storage = PixelStorage(pointer: block.pointer, capacity: block.capacity)
        try initialize(UnsafeMutableRawBufferPointer(start: block.pointer, count: byteCount))
        self.width = width
        self.height = height
        self.storage = storage
    }

    /// A buffer whose every pixel is `fill` (transparent black by default).
    public init(width: Int, height: Int, filledWith fill: RGBA = RGBA(0, 0, 0, 0)) throws {
        try self.init(width: width, height: height) { bytes in
            _ = bytes.initializeMemory(as: UInt32.self, repeating: fill.packed)
        }
    }

    /// A buffer copied from `bytes`, which must hold exactly `width * height * 4` RGBA bytes.
    public init(width: Int, height: Int, rgba bytes: [UInt8]) throws {
        guard bytes.count == width * height * Self.bytesPerPixel else {
            throw ImageError(.badImageData, "expected \(width * height * 4) RGBA bytes, got \(bytes.count)")
        }
        try self.init(width: width, height: height) { destination in
            bytes.withUnsafeBytes { destination.copyMemory(from: $0) }
        }
    }

    /// Width and height.
    public var size: PixelSize { PixelSize(width: width, height: height) }
    /// Bytes in one row: `width * 4`.
    public var bytesPerRow: Int { width * Self.bytesPerPixel }
    /// Bytes of pixel data: `width * height * 4`.
    public var byteCount: Int { bytesPerRow * height }

    /// Calls `body` with the pixel bytes (read-only).
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: storage.pointer, count: byteCount))
    }

    /// Calls `body` with the bytes writable when this value is the only one that holds them (a buffer its
    /// decoder just made, not yet shared) and returns `true`; otherwise returns `false` without calling it.
    /// What lets a step right after decoding (colour conversion) work in place without breaking the promise
    /// that a buffer anyone else can see never changes.
    mutating func mutateIfUniquelyOwned(_ body: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard isKnownUniquelyReferenced(&storage) else { return false }
        body(UnsafeMutableRawBufferPointer(start: storage.pointer, count: byteCount))
        return true
    }

    /// A copy of the pixel bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The pixel at column `x`, row `y` (straight alpha). Traps when out of bounds, like an array.
    public subscript(x: Int, y: Int) -> RGBA {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(size)")
        let offset = (y * width + x) * Self.bytesPerPixel
        return withUnsafeBytes { RGBA($0[offset], $0[offset + 1], $0[offset + 2], $0[offset + 3]) }
    }

    /// Whether any pixel has alpha below 255.
    public var containsTransparency: Bool { withUnsafeBytes(Self.containsTransparency) }

    /// Whether any RGBA8 pixel in `bytes` has alpha below 255.
    static func containsTransparency(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Sixteen pixels a load, four loads ANDed together before their alpha bytes are looked at: a 12 MP
        // opaque photo (every encoder and filter asks) costs a couple of milliseconds, not ten.
        let alpha = SIMD16<UInt32>(repeating: UInt32(littleEndian: 0xFF00_0000))
        var offset = 0
        while offset + 256 <= bytes.count {
            let all = bytes.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt32>.self)
                & bytes.loadUnaligned(fromByteOffset: offset + 64, as: SIMD16<UInt32>.self)
                & bytes.loadUnaligned(fromByteOffset: offset + 128, as: SIMD16<UInt32>.self)
                & bytes.loadUnaligned(fromByteOffset: offset + 192, as: SIMD16<UInt32>.self)
            if any(all & alpha .!= alpha) { return true }
            offset += 256
        }
        while offset < bytes.count {
            if bytes[offset + 3] != 255 { return true }
            offset += 4
        }
        return false
    }
}

/// Owns one block of pixel memory and gives it back to the pool when the last buffer using it goes away.
final class PixelStorage: @unchecked Sendable {  // C boundary: raw memory written once by C code, read-only after
    let pointer: UnsafeMutableRawPointer
    let capacity: Int

    init(pointer: UnsafeMutableRawPointer, capacity: Int) {
        self.pointer = pointer
        self.capacity = capacity
    }

    deinit { PixelMemoryPool.shared.recycle(pointer, capacity: capacity) }
}
