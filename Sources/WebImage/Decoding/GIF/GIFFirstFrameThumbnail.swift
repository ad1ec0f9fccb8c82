extension GIFFrameDecoder {
    /// The first frame of a GIF shrunk to `target` as its rows are decompressed (``RowStreamingResampler``), for
    /// the thumbnail of a still GIF or of a first frame only (a later frame would need the canvas). No full-size
    /// canvas or bitmap is made: only the frame's palette indices (a byte a pixel) and the resampler's band.
    /// The first frame is drawn on a transparent canvas, so each canvas row is the frame's colours inside its
    /// rectangle (its transparent index left clear) and clear elsewhere, and rows the frame does not cover are
    /// clear: the result is the canvas ``GIFCanvas`` would make, shrunk.
    func firstFrameThumbnail(
        _ descriptor: GIFImageDescriptor, control: GraphicControl, canvasSize: PixelSize, target: PixelSize,
        from reader: GIFFileReader
    ) throws -> PixelBuffer {
        let resampler = try RowStreamingResampler(sourceSize: canvasSize, outputSize: target, filter: .area)
        let canvasWidth = canvasSize.width
        let row = UnsafeMutablePointer<UInt32>.allocate(capacity: canvasWidth)
        defer { row.deallocate() }
        let rowBytes = UnsafeMutableRawPointer(row).assumingMemoryBound(to: UInt8.self)
        var added = [Bool](repeating: false, count: canvasSize.height)

        let rect = descriptor.rect
        let visibleWidth = min(rect.width, canvasWidth - rect.x)
        if visibleWidth > 0 && rect.height > 0 && rect.y < canvasSize.height {
            let palette = descriptor.localPalette ?? reader.globalPalette ?? .grayscale
            try withDecompressedRows(descriptor, canvasHeight: canvasSize.height, from: reader) { y, indices in
                guard !added[y] else { return }
                row.update(repeating: 0, count: canvasWidth)  // the resampler may have overwritten it
                palette.draw(UnsafeBufferPointer(rebasing: indices[..<visibleWidth]), into: row + rect.x,
                             transparentIndex: control.transparentIndex)
                resampler.add(row: y, pixels: rowBytes)
                added[y] = true
            }
        } else {
            try reader.skipImageData()
        }
        for y in 0..<canvasSize.height where !added[y] {
            row.update(repeating: 0, count: canvasWidth)
            resampler.add(row: y, pixels: rowBytes)
        }
        return try resampler.finish()
    }
}
