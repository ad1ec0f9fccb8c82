import CZlib
import Foundation

/// Gzip files made inside the tests: real ones through zlib's deflate, and a bomb written bit by bit.
enum GzipWriter {
    /// `data` gzipped by zlib (window bits 16 + 15 ask for the gzip header and trailer).
    static func compress(_ data: Data) -> Data {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        let started = deflateInit2_(stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                                    zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(started == Z_OK)
        defer { deflateEnd(stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(input.count))))
        let status = input.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                stream.pointee.next_in = input.baseAddress
                stream.pointee.avail_in = UInt32(input.count)
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = UInt32(output.count)
                return deflate(stream, Z_FINISH)
            }
        }
        precondition(status == Z_STREAM_END)
        return Data(output[..<Int(stream.pointee.total_out)])
    }

    /// A gzip file of `mebibytes` MiB of zero bytes, at deflate's best ratio (about 1 000 : 1), written without
    /// compressing anything: one fixed-Huffman block of a literal 0 and then matches of 258 bytes at distance 1.
    static func zeros(mebibytes: Int) -> Data {
        let total = mebibytes << 20
        var bits = BitWriter()
        bits.write(0b1, count: 1)  // BFINAL
        bits.write(0b01, count: 2)  // BTYPE: fixed Huffman codes
        bits.writeHuffman(0b0011_0000, count: 8)  // literal 0
        // Length 258 (code 285, 8 bits), then distance 1 (code 0, 5 bits), as long as they fit; the rest as one
        // shorter match, or literals when under 3 bytes remain.
        let longestMatch = BitWriter.reversed(0b1100_0101, count: 8)
        var remaining = total - 1
        for _ in 0..<(remaining / 258) { bits.write(longestMatch, count: 13) }
        remaining %= 258
        if remaining >= 3 {
            bits.writeLength(remaining)
        } else {
            for _ in 0..<remaining { bits.writeHuffman(0b0011_0000, count: 8) }
        }
        bits.writeHuffman(0, count: 7)  // end of block (code 256)
        var file: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        file += bits.finish()
        // CRC-32 of the zeros: that of 1 MiB, combined with itself by doubling.
        let mebibyte = [UInt8](repeating: 0, count: 1 << 20)
        var crc = mebibyte.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
        var length = 1 << 20
        precondition(mebibytes > 0 && mebibytes & (mebibytes - 1) == 0, "a power of two")
        while length < total {
            crc = crc32_combine(crc, crc, off_t(length))
            length *= 2
        }
        file += withUnsafeBytes(of: UInt32(truncatingIfNeeded: crc).littleEndian) { Array($0) }
        file += withUnsafeBytes(of: UInt32(truncatingIfNeeded: total).littleEndian) { Array($0) }
        return Data(file)
    }
}

/// Deflate's bit order: values least significant bit first, Huffman codes most significant bit first.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var buffer: UInt64 = 0
    private var count = 0

    mutating func write(_ value: UInt64, count bitCount: Int) {
        buffer |= value << UInt64(count)
        count += bitCount
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            buffer >>= 8
            count -= 8
        }
    }

    mutating func writeHuffman(_ code: UInt64, count bitCount: Int) {
        write(Self.reversed(code, count: bitCount), count: bitCount)
    }

    /// The `bitCount` low bits of `code` in the opposite order.
    static func reversed(_ code: UInt64, count bitCount: Int) -> UInt64 {
        var reversed: UInt64 = 0
        for bit in 0..<bitCount where code & (1 << UInt64(bit)) != 0 { reversed |= 1 << UInt64(bitCount - 1 - bit) }
        return reversed
    }

    /// A match of `length` (3…257) at distance 1, with the fixed codes of RFC 1951 section 3.2.5–3.2.6.
    mutating func writeLength(_ length: Int) {
        let bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
                     131, 163, 195, 227]
        let extras = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5]
        let index = bases.lastIndex { $0 <= length }!
        let symbol = 257 + index
        // Symbols 256…279 have 7-bit codes from 0; 280…287 have 8-bit codes from 0b1100_0000.
        if symbol <= 279 {
            writeHuffman(UInt64(symbol - 256), count: 7)
        } else {
            writeHuffman(UInt64(0b1100_0000 + symbol - 280), count: 8)
        }
        write(UInt64(length - bases[index]), count: extras[index])
        writeHuffman(0, count: 5)  // distance 1
    }

    mutating func finish() -> [UInt8] {
        if count > 0 { bytes.append(UInt8(truncatingIfNeeded: buffer)) }
        return bytes
    }
}
