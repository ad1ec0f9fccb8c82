/// The CRC-32 of PNG chunks (ISO 3309 / ITU-T V.42, polynomial 0xEDB88320, the one zlib computes), eight bytes at
/// a time ("slicing by 8") so checking every chunk of an animation costs little beside inflating it.
enum CRC32 {
    /// Eight 256-entry tables: table `k` gives the CRC of a byte followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The CRC of `bytes`, continuing from `crc` (the CRC of the bytes before them; 0 to start).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else { return crc }
        tables.withUnsafeBufferPointer { table in
            var index = 0
            while index + 8 <= count {
                let low = value ^ UInt32(littleEndianBytesAt: base + index)
                let high = UInt32(littleEndianBytesAt: base + index + 4)
                value = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                value = (value >> 8) ^ table[Int((value ^ UInt32(byte)) & 0xFF)]
                index += 1
            }
        }
        return ~value
    }
}

extension UInt32 {
    /// Four bytes at `pointer` read as a little-endian number, whatever their alignment.
    @inline(__always)
    fileprivate init(littleEndianBytesAt pointer: UnsafeRawPointer) {
        self = UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self))
    }
}
