/// A bitmap that a push decoder keeps writing into between chunks of input, which a ``PixelBuffer`` (immutable
/// once made) cannot be.
///
/// Its memory comes from ``PixelMemoryPool`` like a pixel buffer's. A partial image is a copy of the rows
/// written so far (``snapshot(validRows:)``); the complete bitmap becomes a ``PixelBuffer`` without a copy
/// (``freeze()``), after which the canvas is empty. Rows that were never written are never shown: the memory
/// may be recycled from another image.
final class PixelCanvas {
    let width: Int
    let height: Int
    private var storage: PixelStorage?

    /// A canvas of `width` × `height` RGBA pixels, uninitialised unless `zeroed`.
    init(width: Int, height: Int, zeroed: Bool = false) throws {
        guard width > 0, height > 0 else {
            throw ImageError(.badImageData, "an image needs at least one pixel, got \(width)x\(height)")
        }
        let (pixels, overflowA) = width.multipliedReportingOverflow(by: height)
        let (byteCount, overflowB) = pixels.multipliedReportingOverflow(by: PixelBuffer.bytesPerPixel)
        guard !overflowA, !overflowB, let block = PixelMemoryPool.shared.allocate(byteCount: byteCount) else {
            throw ImageError(.imageTooLarge, "cannot allocate \(width)x\(height) pixels")
        }
        storage = PixelStorage(pointer: block.pointer, capacity: block.capacity)
        self.width = width
        self.height = height
        if zeroed { block.pointer.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount) }
    }

    var size: PixelSize { PixelSize(width: width, height: height) }
    var bytesPerRow: Int { width * PixelBuffer.bytesPerPixel }
    var byteCount: Int { bytesPerRow * height }

    /// The memory decoders write into; `nil` after ``freeze()``.
    var baseAddress: UnsafeMutablePointer<UInt8>? {
        storage?.pointer.assumingMemoryBound(to: UInt8.self)
    }

    /// A copy of the first `validRows` rows with every later row transparent black.
    func snapshot(validRows: Int) throws -> PixelBuffer {
        guard let source = storage?.pointer else {
            throw ImageError(.badImageData, "the canvas was already handed over")
        }
        let copied = min(max(validRows, 0), height) * bytesPerRow
        return try PixelBuffer(width: width, height: height) { destination in
            guard let base = destination.baseAddress else { return }
            base.copyMemory(from: source, byteCount: copied)
            (base + copied).initializeMemory(as: UInt8.self, repeating: 0, count: destination.count - copied)
        }
    }

    /// Hands the memory over to a pixel buffer without copying; every row must have been written.
    func freeze() throws -> PixelBuffer {
        guard let storage else { throw ImageError(.badImageData, "the canvas was already handed over") }
        self.storage = nil
        return PixelBuffer(width: width, height: height, adopting: storage)
    }
}

extension PixelBuffer {
    /// A buffer over memory a ``PixelCanvas`` filled completely.
    fileprivate init(width: Int, height: Int, adopting storage: PixelStorage) {
        self.width = width
        self.height = height
        self.storage = storage
    }
}
