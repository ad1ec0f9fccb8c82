import CZlib
import Foundation

/// Inflates zlib or gzip data held in memory, refusing to produce more than a limit: what embedded compressed
/// blocks (a PNG's ICC profile, a compressed SVG) need, where the declared size cannot be trusted.
enum BoundedInflate {
    /// The inflated bytes, or `nil` when the data is damaged, ends early, or would inflate past `limit` bytes.
    static func inflate(_ input: UnsafeRawBufferPointer, limit: Int) -> Data? {
        guard let base = input.baseAddress, input.count <= Int(UInt32.max) else { return nil }
        // zlib remembers the stream's address, so it must not move: allocated, not a local.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard webimage_inflate_init_zlib_or_gzip(stream) == Z_OK else { return nil }
        defer { inflateEnd(stream) }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: min(64 << 10, limit + 1))
        while true {
            let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                return CZlib.inflate(stream, Z_NO_FLUSH)
            }
            let produced = chunk.count - Int(stream.pointee.avail_out)
            guard output.count + produced <= limit else { return nil }
            output.append(contentsOf: chunk[..<produced])
            switch status {
            case Z_STREAM_END: return output
            case Z_OK: continue
            case Z_BUF_ERROR where produced > 0: continue
            default: return nil  // damaged, or the input ended before the stream did
            }
        }
    }
}
