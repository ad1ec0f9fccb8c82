import CWebP
import Foundation

/// The chunks of an extended WebP file that describe its pixels: the colour profile (`ICCP`) and metadata
/// (`EXIF`, `XMP `).
enum WebPExtendedChunks {
    /// `webp` with each of `chunks` (`ICCP`, `EXIF`, `XMP `) set, through libwebpmux, which turns a simple file
    /// into an extended one and sets the VP8X flags. `webp` itself when there is none.
    static func tagging(_ webp: Data, with chunks: [(fourCC: String, payload: Data)]) throws -> Data {
        guard !chunks.isEmpty else { return webp }
        return try webp.withUnsafeBytes { file in
            var fileData = WebPData(bytes: file.baseAddress?.assumingMemoryBound(to: UInt8.self), size: file.count)
            guard let mux = WebPMuxCreate(&fileData, 0) else {
                throw ImageError(.badImageData, "WebP: libwebpmux could not read the encoded file")
            }
            defer { WebPMuxDelete(mux) }
            for (fourCC, payload) in chunks {
                // Copied by the mux (last argument 1): the bytes only live for this call.
                let status = payload.withUnsafeBytes { bytes in
                    var chunk = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
                    return WebPMuxSetChunk(mux, fourCC, &chunk, 1)
                }
                guard status == WEBP_MUX_OK else {
                    throw ImageError(.badImageData, "WebP: libwebpmux could not add the \(fourCC) chunk")
                }
            }
            var assembled = WebPData()
            guard WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK, let bytes = assembled.bytes else {
                throw ImageError(.badImageData, "WebP: libwebpmux could not assemble the file")
            }
            defer { WebPDataClear(&assembled) }
            return Data(bytes: bytes, count: assembled.size)
        }
    }
}
