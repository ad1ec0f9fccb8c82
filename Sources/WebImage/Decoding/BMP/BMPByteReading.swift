/// Little-endian reads for the BMP and ICO parsers. Callers check the bounds first (every header length is
/// validated before its fields are read), so these only read.
extension UnsafeRawBufferPointer {
    /// The unsigned 16-bit little-endian value at `offset`.
    @inline(__always)
    func bmpUInt16(at offset: Int) -> Int {
        Int(self[offset]) | Int(self[offset + 1]) << 8
    }

    /// The unsigned 32-bit little-endian value at `offset`.
    @inline(__always)
    func bmpUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16
            | UInt32(self[offset + 3]) << 24
    }

    /// The signed 32-bit little-endian value at `offset`.
    @inline(__always)
    func bmpInt32(at offset: Int) -> Int {
        Int(Int32(bitPattern: bmpUInt32(at: offset)))
    }
}
