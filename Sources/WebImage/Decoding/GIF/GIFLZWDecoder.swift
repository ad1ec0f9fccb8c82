/// Decompresses a GIF frame's LZW data, read in place from its sub-blocks, into palette indices, faster than
/// giflib's `DGifGetLine`.
///
/// Why it is faster: the frame is decompressed into one buffer, so every string in the code table already sits
/// in that buffer where it was first written. A table entry is just an offset and a length, and decoding a code is
/// a copy from earlier output. giflib keeps a prefix and suffix per entry and walks the chain byte by byte, twice
/// for each new entry (once to push the string, once to find its first byte).
///
/// The rules are GIF89a's: codes are read least significant bit first, start one bit wider than the minimum code
/// size and widen once the next free entry needs another bit, up to 12 bits; a full table is kept as it is until
/// the next clear code (the "deferred clear" encoders may use).
enum GIFLZWDecoder {
    /// Fills `pixels` from `subBlocks`: the image's data sub-blocks as the file stores them (a length byte, then
    /// that many bytes; a zero length ends them), starting at the first length byte. Data beyond the last pixel
    /// is ignored, as giflib and browsers do; so is anything after the terminator.
    ///
    /// Throws `ImageError.Code.badImageData` when the minimum code size is outside 1–8, a code names an entry
    /// that does not exist yet, or the data (or its end code) comes before the last pixel;
    /// `ImageError.Code.imageTooLarge` for more than 2^31 − 1 pixels.
    static func decode(
        subBlocks: UnsafeRawBufferPointer, minimumCodeSize: Int, into pixels: UnsafeMutableBufferPointer<UInt8>
    ) throws(ImageError) {
        guard (1...8).contains(minimumCodeSize) else {
            throw ImageError(.badImageData, "GIF: the LZW minimum code size \(minimumCodeSize) is outside 1–8")
        }
        guard let output = pixels.baseAddress, !pixels.isEmpty else { return }
        // Table offsets are 32-bit to keep the table in the L1 cache; only limits raised past 2 gigapixels reach this.
        guard pixels.count <= Int(Int32.max) else {
            throw ImageError(.imageTooLarge, "GIF: a frame of \(pixels.count) pixels is over 2^31 - 1")
        }
        let table = UnsafeMutablePointer<Entry>.allocate(capacity: maxCodeCount)
        defer { table.deallocate() }
        var state = State(minimumCodeSize: minimumCodeSize, input: subBlocks)
        try state.run(output: output, count: pixels.count, table: table)
    }

    /// Codes are at most 12 bits wide.
    private static let maxCodeCount = 4096

    /// Where a code's string was first written in the output, and how long it is.
    private struct Entry {
        var offset: Int32
        var length: Int32
    }

    private struct State {
        let clearCode: Int
        let minimumCodeSize: Int
        var bits: GIFCodeBits

        init(minimumCodeSize: Int, input: UnsafeRawBufferPointer) {
            self.minimumCodeSize = minimumCodeSize
            clearCode = 1 << minimumCodeSize
            bits = GIFCodeBits(input: input)
        }

        mutating func run(output: UnsafeMutablePointer<UInt8>, count: Int, table: UnsafeMutablePointer<Entry>)
            throws(ImageError)
        {
            let endCode = clearCode + 1
            var nextCode = clearCode + 2
            var codeWidth = minimumCodeSize + 1
            // The string written for the previous code; `previousLength == 0` right after a clear code.
            var previousOffset = 0
            var previousLength = 0
            var position = 0
            while position < count {
                guard let code = bits.next(width: codeWidth) else {
                    throw ImageError(.badImageData, "GIF: the image data ends before its last pixel")
                }
                if code == clearCode {
                    nextCode = clearCode + 2
                    codeWidth = minimumCodeSize + 1
                    previousLength = 0
                    continue
                }
                if code == endCode {
                    throw ImageError(.badImageData, "GIF: the image data ends before its last pixel")
                }
                let length: Int
                if code < clearCode {
                    output[position] = UInt8(truncatingIfNeeded: code)
                    length = 1
                } else if code < nextCode && previousLength > 0 {
                    let entry = table[code]
                    length = Int(entry.length)
                    // The entry's string ends at or before `position`, so source and destination never overlap.
                    copy(from: output + Int(entry.offset), to: output + position, count: min(length, count - position),
                         end: output + count)
                } else if code == nextCode && previousLength > 0 {
                    // The string the encoder is defining right now: the previous string plus its own first byte.
                    length = previousLength + 1
                    let written = min(length, count - position)
                    copy(from: output + previousOffset, to: output + position, count: min(previousLength, written),
                         end: output + count)
                    if written == length { output[position + previousLength] = output[previousOffset] }
                } else {
                    throw ImageError(.badImageData, "GIF: the compressed image data is corrupt (code \(code))")
                }
                if previousLength > 0 && nextCode < maxCodeCount {
                    // The new entry is the previous string plus this string's first byte: exactly the bytes
                    // from the previous string's start up to and including `position`.
                    table[nextCode] = Entry(offset: Int32(previousOffset), length: Int32(previousLength + 1))
                    nextCode += 1
                }
                // Checked after every code, not only after a new entry, as giflib does: with a minimum code size
                // of 1 the first free entry (4) already needs 3 bits.
                if nextCode >= 1 << codeWidth && codeWidth < 12 { codeWidth += 1 }
                previousOffset = position
                previousLength = length
                position += length
            }
        }

        /// Copies `count` bytes of earlier output to `destination`. Most strings are short: those go as one
        /// unaligned 8-byte load and store when the 8 source bytes are all written output and the 8 destination
        /// bytes fit before `end`. The bytes stored past `count` are rewritten by the strings that follow, since
        /// every byte before `end` is written in order.
        @inline(__always)
        private func copy(from source: UnsafeMutablePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>,
                          count: Int, end: UnsafeMutablePointer<UInt8>) {
            if count <= 8 && source + 8 <= destination && destination + 8 <= end {
                let word = UnsafeRawPointer(source).loadUnaligned(as: UInt64.self)
                UnsafeMutableRawPointer(destination).storeBytes(of: word, as: UInt64.self)
                return
            }
            destination.update(from: source, count: count)
        }
    }
}
