/// Decompresses BI_RLE8 and BI_RLE4 bitmaps (always stored bottom-up) into RGBA.
///
/// The stream is pairs of bytes: a count and a value (a run of one index, or for RLE4 two alternating
/// indices), or 0 and an escape: 0 ends the line, 1 ends the bitmap, 2 moves the pen right and up by the next
/// two bytes, 3…255 start that many literal indices padded to a 16-bit boundary.
///
/// **Pixels the stream never writes** (skipped by a delta, an early end of line or end of bitmap) take palette
/// entry 0, opaque, as Pillow does. (Browsers show them transparent; an image whose transparency depends on
/// its run-length stream would make `hasAlpha` unknowable from the header, so this decoder keeps such bitmaps
/// opaque.) Runs and literals that pass the right edge are clipped, a delta that leaves the bitmap ends it, and
/// a stream that runs out before the end-of-bitmap escape, while rows remain, is `ImageError.Code.badImageData`.
enum BMPRunLengthDecoder {
    /// Writes every pixel of `header`'s bitmap from `bytes` into `destination` (`width * height * 4` bytes).
    static func write(
        _ header: BMPHeader, from bytes: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer
    ) throws {
        let table = BMPPixelUnpacker.palette(of: header)
        _ = destination.initializeMemory(as: UInt32.self, repeating: table[0])
        var stream = Stream(bytes: bytes, position: header.pixelOffset)
        var pen = Pen(width: header.width, height: header.height, table: table, output: destination)
        let isRLE4 = header.compression == .rle4
        while !pen.isPastTop {
            guard let count = stream.next(), let value = stream.next() else {
                if pen.isAtEnd { return }
                throw ImageError(.badImageData, "BMP: the run-length data ends at row \(pen.row) of \(header.height)")
            }
            if count > 0 {
                // A run: one index, or for RLE4 the byte's two nibbles in turn.
                let first = isRLE4 ? Int(value >> 4) : Int(value)
                let second = isRLE4 ? Int(value & 0x0F) : Int(value)
                for index in 0..<Int(count) { pen.put(index % 2 == 0 ? first : second) }
                continue
            }
            switch value {
            case 0: pen.newLine()
            case 1: return
            case 2:
                guard let right = stream.next(), let up = stream.next() else {
                    throw ImageError(.badImageData, "BMP: the run-length data ends inside a delta")
                }
                pen.move(right: Int(right), up: Int(up))
            default:
                let literalCount = Int(value)
                let byteCount = isRLE4 ? (literalCount + 1) / 2 : literalCount
                guard let literal = stream.take(byteCount + byteCount % 2) else {
                    throw ImageError(.badImageData, "BMP: the run-length data ends inside a literal run")
                }
                for index in 0..<literalCount {
                    if isRLE4 {
                        let byte = literal[literal.startIndex + index / 2]
                        pen.put(Int(index % 2 == 0 ? byte >> 4 : byte & 0x0F))
                    } else {
                        pen.put(Int(literal[literal.startIndex + index]))
                    }
                }
            }
        }
    }

    /// A read cursor over the compressed bytes.
    private struct Stream {
        let bytes: UnsafeRawBufferPointer
        var position: Int

        mutating func next() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func take(_ count: Int) -> UnsafeRawBufferPointer.SubSequence? {
            guard count <= bytes.count - position else { return nil }
            defer { position += count }
            return bytes[position..<position + count]
        }
    }

    /// Where the next pixel goes: `row` counts from the bottom, as the stream does.
    private struct Pen {
        let width: Int
        let height: Int
        let table: [UInt32]
        let output: UnsafeMutableRawBufferPointer
        var x = 0
        var row = 0

        init(width: Int, height: Int, table: [UInt32], output: UnsafeMutableRawBufferPointer) {
            self.width = width
            self.height = height
            self.table = table
            self.output = output
        }

        /// Every row has been passed: nothing more can be written.
        var isPastTop: Bool { row >= height }
        /// The last pixel of the top row has been written: a stream may stop here without its end escape.
        var isAtEnd: Bool { isPastTop || (row == height - 1 && x >= width) }

        mutating func put(_ index: Int) {
            guard x < width, row < height else { return }
            let offset = ((height - 1 - row) * width + x) * 4
            output.storeBytes(of: table[index], toByteOffset: offset, as: UInt32.self)
            x += 1
        }

        mutating func newLine() {
            x = 0
            row += 1
        }

        mutating func move(right: Int, up: Int) {
            x = min(x + right, width)
            row += up
        }
    }
}
