import WebImage

/// imgproxy's `pixelate`: the image in square blocks of ``size`` pixels from the top-left corner, each the
/// average of its pixels. Blocks cut by the right or bottom edge average as if the image went on mirrored (what
/// libvips's mirror extension gives imgproxy), so an edge block is not darkened by pixels that do not exist.
/// Channels are averaged as stored (straight alpha), as imgproxy does when pixelating alone.
struct Pixelate {
    /// The side of a block in pixels; capped at the image's longer side, and 1 or less does nothing.
    var size: Int

    func transform(_ image: Image) throws -> Image {
        let block = min(size, max(image.size.width, image.size.height))
        guard block > 1 else { return image }
        return try image.mappingFrames(deep: { pixels in
            try DeepPixelBuffer(width: pixels.width, height: pixels.height,
                                significantBits: pixels.significantBits) { destination in
                pixels.withUnsafeSamples { source in
                    Self.pixelate(source.baseAddress!, into: destination.baseAddress!, width: pixels.width,
                                  height: pixels.height, block: block)
                }
            }
        }) { pixels in
            try pixels.withUnsafeBytes { raw in
                try PixelBuffer(width: pixels.width, height: pixels.height) { output in
                    Self.pixelate(raw.bindMemory(to: UInt8.self).baseAddress!,
                                  into: output.bindMemory(to: UInt8.self).baseAddress!,
                                  width: pixels.width, height: pixels.height, block: block)
                }
            }
        }
    }

    /// Source index `index` of a line of `length` pixels extended by mirroring (the edge pixel repeated, then the
    /// line backwards, and so on).
    static func mirrored(_ index: Int, length: Int) -> Int {
        let period = 2 * length, folded = index % period
        return folded < length ? folded : period - 1 - folded
    }

    /// Writes the pixelated RGBA `source` (`width` × `height`, any sample size) into `destination`.
    static func pixelate<Sample: FixedWidthInteger & UnsignedInteger>(
        _ source: UnsafePointer<Sample>, into destination: UnsafeMutablePointer<Sample>,
        width: Int, height: Int, block: Int
    ) {
        let blocksAcross = (width + block - 1) / block, blocksDown = (height + block - 1) / block
        let area = block * block
        // Per block of the current block row: red, green, blue, alpha sums.
        var sums = [Int](repeating: 0, count: blocksAcross * 4)
        for blockY in 0..<blocksDown {
            for index in sums.indices { sums[index] = 0 }
            for y in blockY * block..<(blockY + 1) * block {
                let row = source + mirrored(y, length: height) * width * 4
                for blockX in 0..<blocksAcross {
                    let start = blockX * block
                    var red = 0, green = 0, blue = 0, alpha = 0
                    for x in start..<start + block {
                        let pixel = row + (x < width ? x : mirrored(x, length: width)) * 4
                        red &+= Int(pixel[0]); green &+= Int(pixel[1])
                        blue &+= Int(pixel[2]); alpha &+= Int(pixel[3])
                    }
                    sums[blockX * 4] &+= red; sums[blockX * 4 + 1] &+= green
                    sums[blockX * 4 + 2] &+= blue; sums[blockX * 4 + 3] &+= alpha
                }
            }
            // The block row's first line holds the averages; the other lines copy it.
            let firstRow = blockY * block, lastRow = min(height, firstRow + block)
            let line = destination + firstRow * width * 4
            for blockX in 0..<blocksAcross {
                let start = blockX * block
                for x in start..<min(width, start + block) {
                    for channel in 0..<4 {
                        let mean = (sums[blockX * 4 + channel] + area / 2) / area
                        line[x * 4 + channel] = Sample(truncatingIfNeeded: mean)
                    }
                }
            }
            for y in firstRow + 1..<lastRow {
                (destination + y * width * 4).update(from: line, count: width * 4)
            }
        }
    }
}
