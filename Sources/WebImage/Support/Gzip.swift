import CZlib
import Foundation

/// Gzip-compressed data (RFC 1952) inflated by zlib, never past a limit: how an SVG document stored as `.svgz`
/// (and served that way, often without `Content-Encoding`) is read. A gzip bomb costs at most the limit.
public enum Gzip {
    /// The most bytes ``inflate(_:limit:)`` produces by default: 16 MiB, far beyond any real compressed SVG
    /// document, and less than one 12-megapixel photo's pixels.
    public static let defaultLimit = 16 << 20

    /// Whether `data` starts like a gzip member: the magic bytes 1F 8B, then 8 (deflate, the only method).
    public static func isCompressed(_ data: Data) -> Bool { data.withUnsafeBytes(isCompressed) }

    static func isCompressed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 3 && bytes[0] == 0x1F && bytes[1] == 0x8B && bytes[2] == 8
    }

    /// The content of the gzip member `data` starts with (bytes after it are ignored).
    ///
    /// Throws ``ImageError/Code/imageTooLarge`` when the content is longer than `limit` bytes, known once `limit`
    /// bytes have been inflated and never more; ``ImageError/Code/badImageData`` when `data` is not gzip, is
    /// damaged (its CRC-32 and length included) or ends before its trailer.
    public static func inflate(_ data: Data, limit: Int = defaultLimit) throws -> Data {
        let inflated = try data.withUnsafeBytes { try inflate($0, upTo: limit) }
        guard inflated.complete else {
            throw ImageError(.imageTooLarge, "gzip: the data inflates to more than \(limit) bytes")
        }
        return Data(inflated.bytes)
    }

    /// Up to `limit` bytes of the content of the gzip member `input` starts with, and whether that was all of it.
    static func inflate(_ input: UnsafeRawBufferPointer, upTo limit: Int) throws -> (bytes: [UInt8], complete: Bool) {
        guard isCompressed(input), let base = input.baseAddress, input.count <= Int(UInt32.max) else {
            throw ImageError(.badImageData, "gzip: the data is not a gzip stream zlib can read")
        }
        // zlib checks that its stream has not moved between calls: it lives on the heap, not in a Swift var.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard webimage_inflate_init_gzip(stream) == Z_OK else {
            throw ImageError(.imageTooLarge, "gzip: zlib could not start")
        }
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
                throw ImageError(.badImageData, "gzip: the data ends after \(output.count) inflated bytes")
            case Z_MEM_ERROR: throw ImageError(.imageTooLarge, "gzip: zlib ran out of memory")
            default: throw ImageError(.badImageData, "gzip: the stream is damaged after \(output.count) bytes")
            }
        }
    }
}
