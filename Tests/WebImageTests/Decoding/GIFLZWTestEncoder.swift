/// A plain GIF LZW encoder for the decoder's tests: it can leave the table full instead of clearing it ("deferred
/// clear"), which giflib's encoder never does, and its output can be cut or edited code by code.
struct GIFLZWTestEncoder {
    let minimumCodeSize: Int
    /// Send a clear code when the table fills (giflib's way); otherwise keep the full table to the end.
    var clearWhenFull = true

    /// The codes, in order, with the width each is written in.
    func codes(for indices: [UInt8], endCode: Bool = true) -> [(code: Int, width: Int)] {
        let clear = 1 << minimumCodeSize
        var output: [(code: Int, width: Int)] = [(clear, minimumCodeSize + 1)]
        guard let first = indices.first else { return output }
        var table: [Int: Int] = [:]
        var next = clear + 2
        var width = minimumCodeSize + 1
        var prefix = Int(first)
        for byte in indices.dropFirst() {
            let key = prefix << 8 | Int(byte)
            if let code = table[key] {
                prefix = code
                continue
            }
            output.append((prefix, width))
            if next < 4096 {
                table[key] = next
                next += 1
                if next > 1 << width && width < 12 { width += 1 }
                if next == 4096 && clearWhenFull {
                    output.append((clear, width))
                    table = [:]
                    next = clear + 2
                    width = minimumCodeSize + 1
                }
            }
            prefix = Int(byte)
        }
        output.append((prefix, width))
        if endCode {
            let endWidth = next == 1 << width && width < 12 ? width + 1 : width
            output.append((clear + 1, endWidth))
        }
        return output
    }

    /// The codes packed least significant bit first, as a GIF stores them (before sub-blocking).
    static func pack(_ codes: [(code: Int, width: Int)]) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = 0, bitCount = 0
        for (code, width) in codes {
            buffer |= code << bitCount
            bitCount += width
            while bitCount >= 8 {
                bytes.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                bitCount -= 8
            }
        }
        if bitCount > 0 { bytes.append(UInt8(buffer & 0xFF)) }
        return bytes
    }

    /// `bytes` cut into sub-blocks of `blockSize` (the last may be shorter), each after its length byte, and
    /// the zero-length terminator, as a GIF stores image data.
    static func subBlocks(_ bytes: [UInt8], blockSize: Int = 255) -> [UInt8] {
        var blocks: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + blockSize, bytes.count)
            blocks.append(UInt8(end - start))
            blocks += bytes[start..<end]
            start = end
        }
        return blocks + [0]
    }

    /// The indices compressed and cut into sub-blocks.
    func encode(_ indices: [UInt8], blockSize: Int = 255) -> [UInt8] {
        Self.subBlocks(Self.pack(codes(for: indices)), blockSize: blockSize)
    }
}
