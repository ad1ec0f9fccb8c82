extension PixelBuffer {
    /// These pixels on a transparent canvas of `canvas` with their top-left corner at `origin` (cut off where
    /// they leave the canvas).
    package func embedded(in canvas: PixelSize, at origin: (x: Int, y: Int)) throws -> PixelBuffer {
        if canvas == size && origin == (0, 0) { return self }
        return try withUnsafeBytes { source in
            try PixelBuffer(width: canvas.width, height: canvas.height) { destination in
                PixelRows.place(source.baseAddress!, size: size, on: canvas, at: origin,
                                into: destination.baseAddress!, bytesPerPixel: 4)
            }
        }
    }

    /// These pixels centred on a transparent canvas of `canvas` (cut off where the canvas is smaller).
    func centered(on canvas: PixelSize) throws -> PixelBuffer {
        try embedded(in: canvas, at: ((canvas.width - width) >> 1, (canvas.height - height) >> 1))
    }
}
