/// The row copies both depths' geometry shares: a bitmap is rows of pixels of a fixed size (4 bytes at 8 bits a
/// sample, 8 at 16), so cutting a rectangle out and placing a bitmap on a canvas are the same copies at either
/// size.
enum PixelRows {
    /// Copies the pixels inside `rect` of a `sourceWidth`-wide bitmap to `destination`, `rect.width` pixels a row.
    /// `rect` must lie within the source.
    static func crop(_ source: UnsafeRawPointer, sourceWidth: Int, to rect: PixelRect,
                     into destination: UnsafeMutableRawPointer, bytesPerPixel: Int) {
        let rowBytes = rect.width * bytesPerPixel
        for row in 0..<rect.height {
            let from = source + ((rect.y + row) * sourceWidth + rect.x) * bytesPerPixel
            (destination + row * rowBytes).copyMemory(from: from, byteCount: rowBytes)
        }
    }

    /// Fills `destination`, a bitmap of `canvas`, with the `size` bitmap `source` placed with its top-left corner
    /// at `origin` (cut off where it leaves the canvas) and zeros (transparent black) around it. Only what the
    /// bitmap does not cover is cleared: the rest is written once.
    static func place(_ source: UnsafeRawPointer, size: PixelSize, on canvas: PixelSize, at origin: (x: Int, y: Int),
                      into destination: UnsafeMutableRawPointer, bytesPerPixel: Int) {
        let canvasRowBytes = canvas.width * bytesPerPixel
        let firstColumn = max(0, origin.x), endColumn = min(canvas.width, origin.x + size.width)
        let firstRow = max(0, origin.y), endRow = min(canvas.height, origin.y + size.height)
        guard firstColumn < endColumn, firstRow < endRow else {
            destination.initializeMemory(as: UInt8.self, repeating: 0, count: canvas.height * canvasRowBytes)
            return
        }
        let columns = firstColumn..<endColumn, rows = firstRow..<endRow
        destination.initializeMemory(as: UInt8.self, repeating: 0, count: rows.lowerBound * canvasRowBytes)
        let left = columns.lowerBound * bytesPerPixel, copied = columns.count * bytesPerPixel
        for y in rows {
            let line = destination + y * canvasRowBytes
            line.initializeMemory(as: UInt8.self, repeating: 0, count: left)
            let from = source + ((y - origin.y) * size.width + columns.lowerBound - origin.x) * bytesPerPixel
            (line + left).copyMemory(from: from, byteCount: copied)
            (line + left + copied).initializeMemory(as: UInt8.self, repeating: 0,
                                                    count: canvasRowBytes - left - copied)
        }
        (destination + rows.upperBound * canvasRowBytes)
            .initializeMemory(as: UInt8.self, repeating: 0, count: (canvas.height - rows.upperBound) * canvasRowBytes)
    }
}
