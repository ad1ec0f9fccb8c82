import CZlib
import Foundation

/// Gzip-compressed data (RFC 1952) inflated by zlib, never past a limit: how an SVG document stored as `.svgz`
/// (and served that way, often without `Content-Encoding`) is read. A gzip bomb costs at most the limit.
package enum Gzip {
    /// The most bytes ``inflate(_:limit:)`` produces by default: 16 MiB, far beyond any real compressed SVG
    /// document, and less than one 12-megapixel photo's pixels.
    package static let defaultLimit = 16 << 20

    /// Whether `data` starts like a gzip member: the magic bytes 1F 8B, then 8 (deflate, the only method).
    package static func isCompressed(_ data: Data) -> Bool { data.withUnsafeBytes(isCompressed) }

    package static func isCompressed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 3 && bytes[0] == 0x1F && bytes[1] == 0x8B && bytes[2] == 8
    }

    /// The content of the gzip member `data` starts with (bytes after it are ignored).
    ///
    /// Throws ``ImageError/Code/imageTooLarge`` when the content is longer than `limit` bytes, known once `limit`
    /// bytes have been inflated and never more; ``ImageError/Code/badImageData`` when `data` is not gzip, is
    /// damaged (its CRC-32 and length included) or ends before its trailer.
    package static func inflate(_ data: Data, limit: Int = defaultLimit) throws -> Data {
        let inflated = try data.withUnsafeBytes { try inflate($0, upTo: limit) }
        guard inflated.complete else {
            throw ImageError(.imageTooLarge, "gzip: the data inflates to more than \(limit) bytes")
        }
        return Data(inflated.bytes)
    }

    /// `data` itself, or its content when it is gzip-compressed (an `.svgz` document), inflated within `limit`;
    /// throws as ``inflate(_:limit:)`` does.
    package static func inflatedIfCompressed(_ data: Data, limit: Int = defaultLimit) throws -> Data {
        isCompressed(data) ? try inflate(data, limit: limit) : data
    }

    /// Up to `limit` bytes of the content of the gzip member `input` starts with, and whether that was all of it.
    package static func inflate(_ input: UnsafeRawBufferPointer, upTo limit: Int) throws -> (bytes: [UInt8], complete: Bool) {
        guard isCompressed(input) else { throw ImageError(.badImageData, "gzip: the data is not a gzip stream") }
        do {
            return try BoundedInflate.inflate(input, wrapper: .gzip, upTo: limit)
        } catch let error as ImageError {
            throw ImageError(error.code, "gzip: \(error.message)")
        }
    }

    /// `bytes` as one gzip member, compressed at zlib's default level: what a server sends with
    /// `Content-Encoding: gzip` (the proxy's trace exports). `nil` only when zlib cannot get memory.
    package static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard webimage_deflate_init_gzip(stream, Z_DEFAULT_COMPRESSION) == Z_OK else { return nil }
        defer { deflateEnd(stream) }
        // deflateBound is the most one call can write, so one Z_FINISH call ends the stream (+18: gzip's header
        // and trailer, which the bound of a raw stream leaves out).
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, UInt(bytes.count))) + 18)
        let written: Int? = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = UInt32(input.count)
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = UInt32(out.count)
                return deflate(stream, Z_FINISH) == Z_STREAM_END ? out.count - Int(stream.pointee.avail_out) : nil
            }
        }
        guard let written else { return nil }
        output.removeSubrange(written...)
        return output
    }
}
