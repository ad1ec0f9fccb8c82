import CZlib
import Foundation

/// Deflate data held in memory, inflated by zlib but never past a limit: what compressed blocks whose
/// declared size cannot be trusted need (a PNG's embedded ICC profile, a gzip-compressed SVG). A bomb costs at
/// most the limit.
package enum BoundedInflate {
    /// The header and trailer around the deflate data.
    package enum Wrapper {
        /// RFC 1950 (Adler-32 checked): PNG's compressed chunks.
        case zlib
        /// RFC 1952 (CRC-32 and length checked): `.svgz` files.
        case gzip
    }

    /// Up to `limit` bytes of what the stream at the start of `input` inflates to, and whether that was all of
    /// it (bytes after the stream are ignored).
    ///
    /// Throws ``ImageError/Code/badImageData`` when the stream is damaged or ends before its trailer, and
    /// ``ImageError/Code/imageTooLarge`` when zlib cannot get memory.
    package static func inflate(_ input: UnsafeRawBufferPointer, wrapper: Wrapper, upTo limit: Int) throws
        -> (bytes: [UInt8], complete: Bool)
    {
        guard let base = input.baseAddress, input.count <= Int(UInt32.max) else {
            throw ImageError(.badImageData, "the compressed data is empty or too long")
        }
        // zlib checks that its stream has not moved between calls: it lives on the heap, not in a Swift var.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        let started = wrapper == .gzip ? webimage_inflate_init_gzip(stream) : webimage_inflate_init(stream)
        guard started == Z_OK else { throw ImageError(.imageTooLarge, "zlib could not start") }
        defer { inflateEnd(stream) }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(input.count)
        var output: [UInt8] = []
        // One byte past the limit tells a content of exactly `limit` bytes from a longer one.
        var chunk = [UInt8](repeating: 0, count: min(limit + 1, 64 << 10))
        while true {
            let room = min(chunk.count, limit + 1 - output.count)
            let status = chunk.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = UInt32(room)
                return CZlib.inflate(stream, Z_NO_FLUSH)
            }
            output.append(contentsOf: chunk[..<(room - Int(stream.pointee.avail_out))])
            if output.count > limit { return (Array(output[..<limit]), false) }
            switch status {
            case Z_STREAM_END: return (output, true)
            case Z_OK: continue
            case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                throw ImageError(.badImageData, "the compressed data ends after \(output.count) inflated bytes")
            case Z_MEM_ERROR: throw ImageError(.imageTooLarge, "zlib ran out of memory")
            default: throw ImageError(.badImageData, "the compressed data is damaged after \(output.count) bytes")
            }
        }
    }
}
