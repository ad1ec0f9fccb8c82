extension PixelBuffer {
    /// A copy of these pixels resampled to `size` with `filter`, as two separable passes in fixed point.
    ///
    /// Pixels with alpha are premultiplied while filtering so transparent neighbours do not bleed dark fringes
    /// into the result, and converted back to straight alpha at the end.
    public func resized(to size: PixelSize, filter: ResamplingFilter = .lanczos3) throws -> PixelBuffer {
        guard size.width > 0, size.height > 0 else {
            throw ImageError(.badImageData, "cannot resize to \(size)")
        }
        if size == self.size { return self }
        let premultiply = containsTransparency
        let horizontal = size.width == width
            ? nil : ResamplingWeights(sourceLength: width, outputLength: size.width, filter: filter)
        let vertical = size.height == height
            ? nil : ResamplingWeights(sourceLength: height, outputLength: size.height, filter: filter)

        // Pass 1: rows to the new width (premultiplying on the way in), into a scratch block of width × height.
        let scratchWidth = size.width
        let scratchBytes = scratchWidth * height * 4
        guard let scratch = PixelMemoryPool.shared.allocate(byteCount: scratchBytes) else {
            throw ImageError(.imageTooLarge, "cannot allocate a \(scratchWidth)x\(height) resampling buffer")
        }
        defer { PixelMemoryPool.shared.recycle(scratch.pointer, capacity: scratch.capacity) }
        let scratchRows = scratch.pointer.assumingMemoryBound(to: UInt8.self)
        withUnsafeBytes { source in
            let sourceRows = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var premultipliedRow = [UInt8](repeating: 0, count: premultiply ? bytesPerRow : 0)
            premultipliedRow.withUnsafeMutableBufferPointer { rowBuffer in
                for y in 0..<height {
                    var row = sourceRows + y * bytesPerRow
                    if premultiply {
                        Self.premultiply(row, into: rowBuffer.baseAddress!, pixels: width)
                        row = UnsafePointer(rowBuffer.baseAddress!)
                    }
                    let destination = scratchRows + y * scratchWidth * 4
                    if let horizontal {
                        Self.resampleRow(row, into: destination, weights: horizontal)
                    } else {
                        destination.update(from: row, count: bytesPerRow)
                    }
                }
            }
        }

        // Pass 2: columns to the new height, row by row so the inner loop runs over contiguous memory.
        return try PixelBuffer(width: size.width, height: size.height) { output in
            let outputRows = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let rowLength = size.width * 4
            if let vertical {
                var accumulator = [Int32](repeating: 0, count: rowLength)
                accumulator.withUnsafeMutableBufferPointer { sums in
                    for y in 0..<size.height {
                        sums.update(repeating: 1 << (ResamplingWeights.precisionBits - 1))
                        for tap in 0..<vertical.taps {
                            let weight = vertical.weights[y * vertical.taps + tap]
                            if weight == 0 { continue }
                            let row = scratchRows + (vertical.starts[y] + tap) * rowLength
                            for index in 0..<rowLength { sums[index] &+= Int32(row[index]) &* weight }
                        }
                        let destination = outputRows + y * rowLength
                        for index in 0..<rowLength {
                            destination[index] = Self.clampToByte(sums[index] >> ResamplingWeights.precisionBits)
                        }
                    }
                }
            } else {
                outputRows.update(from: scratchRows, count: rowLength * size.height)
            }
            if premultiply { Self.unpremultiply(outputRows, pixels: size.width * size.height) }
        }
    }

    private static func resampleRow(_ row: UnsafePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>,
                                    weights: ResamplingWeights) {
        let half: Int32 = 1 << (ResamplingWeights.precisionBits - 1)
        weights.weights.withUnsafeBufferPointer { allWeights in
            for x in 0..<weights.starts.count {
                var r = half, g = half, b = half, a = half
                var pixel = row + weights.starts[x] * 4
                let base = x * weights.taps
                for tap in 0..<weights.taps {
                    let weight = allWeights[base + tap]
                    r &+= Int32(pixel[0]) &* weight
                    g &+= Int32(pixel[1]) &* weight
                    b &+= Int32(pixel[2]) &* weight
                    a &+= Int32(pixel[3]) &* weight
                    pixel += 4
                }
                let destination = output + x * 4
                destination[0] = clampToByte(r >> ResamplingWeights.precisionBits)
                destination[1] = clampToByte(g >> ResamplingWeights.precisionBits)
                destination[2] = clampToByte(b >> ResamplingWeights.precisionBits)
                destination[3] = clampToByte(a >> ResamplingWeights.precisionBits)
            }
        }
    }

    @inline(__always)
    static func clampToByte(_ value: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(value, 0), 255))
    }

    /// Straight → premultiplied alpha for `pixels` RGBA pixels, rounding to nearest.
    static func premultiply(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, pixels: Int) {
        for index in stride(from: 0, to: pixels * 4, by: 4) {
            let alpha = UInt32(source[index + 3])
            for channel in 0..<3 {
                let product = UInt32(source[index + channel]) * alpha + 128
                destination[index + channel] = UInt8((product + (product >> 8)) >> 8)
            }
            destination[index + 3] = UInt8(alpha)
        }
    }

    /// Premultiplied → straight alpha in place for `pixels` RGBA pixels.
    static func unpremultiply(_ bytes: UnsafeMutablePointer<UInt8>, pixels: Int) {
        for index in stride(from: 0, to: pixels * 4, by: 4) {
            let alpha = UInt32(bytes[index + 3])
            if alpha == 255 { continue }
            if alpha == 0 {
                bytes[index] = 0; bytes[index + 1] = 0; bytes[index + 2] = 0
                continue
            }
            for channel in 0..<3 {
                let straight = (UInt32(bytes[index + channel]) * 255 + alpha / 2) / alpha
                bytes[index + channel] = UInt8(min(straight, 255))
            }
        }
    }
}
