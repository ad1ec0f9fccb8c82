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
        return try image.mappingFrames { try Self.pixelate($0, block: block) }
    }

    /// Source index `index` of a line of `length` pixels extended by mirroring (the edge pixel repeated, then the
    /// line backwards, and so on).
    static func mirrored(_ index: Int, length: Int) -> Int {
        let period = 2 * length, folded = index % period
        return folded < length ? folded : period - 1 - folded
    }

    static func pixelate(_ pixels: PixelBuffer, block: Int) throws -> PixelBuffer {
        let width = pixels.width, height = pixels.height
        let blocksAcross = (width + block - 1) / block, blocksDown = (height + block - 1) / block
        let area = block * block
        // Per block of the current block row: red, green, blue, alpha sums.
        var sums = [Int](repeating: 0, count: blocksAcross * 4)
        var colours = [UInt32](repeating: 0, count: blocksAcross)
        return try pixels.withUnsafeBytes { raw in
            let source = raw.bindMemory(to: UInt8.self).baseAddress!
            return try PixelBuffer(width: width, height: height) { output in
                let destination = output.bindMemory(to: UInt32.self).baseAddress!
                sums.withUnsafeMutableBufferPointer { sums in
                    for blockY in 0..<blocksDown {
                        sums.update(repeating: 0)
                        for y in blockY * block..<(blockY + 1) * block {
                            let row = source + mirrored(y, length: height) * width * 4
                            for blockX in 0..<blocksAcross {
                                let start = blockX * block
                                var red = 0, green = 0, blue = 0, alpha = 0
                                if start + block <= width {
                                    var pixel = row + start * 4
                                    for _ in 0..<block {
                                        red &+= Int(pixel[0]); green &+= Int(pixel[1])
                                        blue &+= Int(pixel[2]); alpha &+= Int(pixel[3])
                                        pixel += 4
                                    }
                                } else {
                                    for x in start..<start + block {
                                        let pixel = row + mirrored(x, length: width) * 4
                                        red &+= Int(pixel[0]); green &+= Int(pixel[1])
                                        blue &+= Int(pixel[2]); alpha &+= Int(pixel[3])
                                    }
                                }
                                sums[blockX * 4] &+= red; sums[blockX * 4 + 1] &+= green
                                sums[blockX * 4 + 2] &+= blue; sums[blockX * 4 + 3] &+= alpha
                            }
                        }
                        for blockX in 0..<blocksAcross {
                            var packed: UInt32 = 0
                            for channel in 0..<4 {
                                packed |= UInt32((sums[blockX * 4 + channel] + area / 2) / area) << (8 * channel)
                            }
                            colours[blockX] = UInt32(littleEndian: packed)  // bytes R, G, B, A in memory
                        }
                        let firstRow = blockY * block, lastRow = min(height, firstRow + block)
                        let line = destination + firstRow * width
                        colours.withUnsafeBufferPointer { colours in
                            for blockX in 0..<blocksAcross {
                                let start = blockX * block
                                (line + start).initialize(repeating: colours[blockX],
                                                          count: min(block, width - start))
                            }
                        }
                        for y in firstRow + 1..<lastRow {
                            (destination + y * width).initialize(from: line, count: width)
                        }
                    }
                }
            }
        }
    }
}
