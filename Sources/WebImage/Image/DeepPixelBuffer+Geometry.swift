extension DeepPixelBuffer {
    /// The pixels inside `rect`, which must lie within the buffer and not be empty.
    func cropped(to rect: PixelRect) throws -> DeepPixelBuffer {
        try sameDepth(rect.size) { destination in
            withUnsafeSamples { samples in
                let source = UnsafeRawBufferPointer(samples)
                PixelRows.crop(source.baseAddress!, sourceWidth: width, to: rect,
                               into: UnsafeMutableRawPointer(destination.baseAddress!), bytesPerPixel: 8)
            }
        }
    }

    /// The pixels as displayed when stored with `orientation`: the same mapping as ``PixelBuffer/applying(_:)``,
    /// eight bytes a pixel.
    func applying(_ orientation: Orientation) throws -> DeepPixelBuffer {
        if orientation == .up { return self }
        return try sameDepth(orientation.displayedSize(of: size)) { destination in
            withUnsafeSamples { samples in
                let source = UnsafeRawBufferPointer(samples)
                orientation.copyDisplayed(source.assumingMemoryBound(to: UInt64.self).baseAddress!, stored: size,
                                          into: UnsafeMutableRawPointer(destination.baseAddress!)
                                              .assumingMemoryBound(to: UInt64.self))
            }
        }
    }

    /// These pixels on a transparent canvas of `canvas` with their top-left corner at `origin` (cut off where
    /// they leave the canvas).
    public func embedded(in canvas: PixelSize, at origin: (x: Int, y: Int)) throws -> DeepPixelBuffer {
        if canvas == size && origin == (0, 0) { return self }
        return try sameDepth(canvas) { destination in
            withUnsafeSamples { samples in
                let source = UnsafeRawBufferPointer(samples)
                PixelRows.place(source.baseAddress!, size: size, on: canvas, at: origin,
                                into: UnsafeMutableRawPointer(destination.baseAddress!), bytesPerPixel: 8)
            }
        }
    }

    /// These pixels centred on a transparent canvas of `canvas`, as ``PixelBuffer``'s quarter-turn rotation
    /// places them.
    func centered(on canvas: PixelSize) throws -> DeepPixelBuffer {
        try embedded(in: canvas, at: ((canvas.width - width) >> 1, (canvas.height - height) >> 1))
    }
}
