import WebImage

/// A grid of thumbnails on a plain background: the demo's one-picture summary of what it loaded.
///
/// Tile `i` sits in column `i % columns`, row `i / columns`; tiles are `tileSize` square with `spacing` pixels
/// around and between them, and each thumbnail is centred in its tile, blended over the background by its alpha.
struct ContactSheet {
    var columns: Int
    var tileSize: Int
    var spacing: Int
    var background: RGBA

    init(columns: Int = 10, tileSize: Int = 96, spacing: Int = 8, background: RGBA = RGBA(32, 32, 36)) {
        self.columns = max(1, columns)
        self.tileSize = max(1, tileSize)
        self.spacing = max(0, spacing)
        self.background = background
    }

    /// The top-left corner of tile `index`.
    func tileOrigin(_ index: Int) -> (x: Int, y: Int) {
        (spacing + index % columns * (tileSize + spacing), spacing + index / columns * (tileSize + spacing))
    }

    /// The canvas for `count` tiles: as many columns as needed up to ``columns``, as many rows as needed.
    func canvasSize(count: Int) -> PixelSize {
        let used = max(1, min(columns, count)), rows = max(1, (count + columns - 1) / columns)
        return PixelSize(width: spacing + used * (tileSize + spacing), height: spacing + rows * (tileSize + spacing))
    }

    /// The first frame of `image` scaled to fit inside a tile (never enlarged).
    func thumbnail(of image: Image) throws -> PixelBuffer {
        let pixels = image.pixels
        guard pixels.width > tileSize || pixels.height > tileSize else { return pixels }
        let ratio = Double(tileSize) / Double(max(pixels.width, pixels.height))
        let size = PixelSize(width: max(1, Int((Double(pixels.width) * ratio).rounded())),
                             height: max(1, Int((Double(pixels.height) * ratio).rounded())))
        return try pixels.resized(to: size, filter: .area)
    }

    /// The sheet with `thumbnails` in order; a thumbnail larger than a tile is cut to the tile.
    func render(_ thumbnails: [PixelBuffer]) throws -> PixelBuffer {
        let size = canvasSize(count: thumbnails.count)
        let canvasRow = size.width * 4
        return try PixelBuffer(width: size.width, height: size.height) { canvas in
            var offset = 0
            while offset < canvas.count {
                canvas[offset] = background.r
                canvas[offset + 1] = background.g
                canvas[offset + 2] = background.b
                canvas[offset + 3] = 255
                offset += 4
            }
            for (index, thumbnail) in thumbnails.enumerated() {
                let origin = tileOrigin(index)
                let width = min(thumbnail.width, tileSize), height = min(thumbnail.height, tileSize)
                let left = origin.x + (tileSize - width) / 2, top = origin.y + (tileSize - height) / 2
                thumbnail.withUnsafeBytes { source in
                    for row in 0..<height {
                        var from = row * thumbnail.bytesPerRow, to = (top + row) * canvasRow + left * 4
                        for _ in 0..<width {
                            let alpha = UInt32(source[from + 3])
                            for channel in 0..<3 {
                                let over = UInt32(source[from + channel]) * alpha
                                    + UInt32(canvas[to + channel]) * (255 - alpha)
                                canvas[to + channel] = UInt8((over + 127) / 255)
                            }
                            canvas[to + 3] = 255
                            from += 4
                            to += 4
                        }
                    }
                }
            }
        }
    }
}
