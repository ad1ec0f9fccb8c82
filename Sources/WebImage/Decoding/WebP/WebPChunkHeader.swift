import Foundation

/// The header of one RIFF chunk in a WebP file: its four-character type and the extent of its payload. Readers
/// that walk a file's chunks without libwebp (its colour profile, where its first frame ends) read them with this.
struct WebPChunkHeader {
    /// The chunk's type, such as `VP8X`, `ICCP`, `ANIM` or `ANMF`.
    let type: String
    /// Where the payload lies in the file; it may run past the bytes received so far.
    let payload: Range<Int>

    /// Where the next chunk starts: after the payload and, when its size is odd, the padding byte.
    var next: Int { payload.upperBound + (payload.count & 1) }

    /// The header at `offset`, or `nil` when its eight bytes are not all in `bytes`.
    init?(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard offset >= 0, offset + 8 <= bytes.count else { return nil }
        type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        let size = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
        payload = offset + 8..<offset + 8 + size
    }
}
