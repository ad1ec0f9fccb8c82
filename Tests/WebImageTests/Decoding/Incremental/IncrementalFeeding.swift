import CTurboJPEG
import Foundation
@testable import WebImage

/// Feeds fixtures to an ``IncrementalDecoder`` piece by piece, the way a download delivers them.
enum IncrementalFeeding {
    /// What one feeding produced.
    struct Run {
        /// Each distinct partial image, with the byte count received when it was returned.
        var partials: [(received: Int, image: Image)] = []
        /// The image ``IncrementalDecoder/finish()`` returned.
        var final: Image
    }

    /// Chunk sizes the tests cut data into: single bytes, odd sizes that split markers and rows, and whole.
    static let chunkSizes = [1, 7, 100, 509, 4096, Int.max]

    /// Appends `data` in chunks of `chunkSize` bytes, asking for the current image after each, then finishes.
    /// Partial images are made whenever there is more to show unless another `policy` is given.
    static func feed(_ data: Data, chunkSize: Int, options: DecodeOptions = DecodeOptions(),
                     policy: IncrementalDecoder.PartialImagePolicy = .everyChange) throws -> Run {
        let decoder = IncrementalDecoder(options: options, partialImagePolicy: policy)
        var partials: [(received: Int, image: Image)] = []
        var start = data.startIndex
        while start < data.endIndex {
            let end = start + min(chunkSize, data.endIndex - start)
            try decoder.append(data[start..<end])
            start = end
            if start < data.endIndex, let image = decoder.currentImage(), image.flags.contains(.incremental),
               partials.last.map({ $0.image.pixels.storage !== image.pixels.storage }) ?? true {
                partials.append((start, image))
            }
        }
        return Run(partials: partials, final: try decoder.finish())
    }

    /// The error `body` throws, as its code; `nil` when it throws none.
    static func errorCode(_ body: () throws -> Void) -> ImageError.Code? {
        do {
            try body()
            return nil
        } catch let error as ImageError {
            return error.code
        } catch {
            return nil
        }
    }

    /// The error of appending all of `data` at once and finishing.
    static func errorCode(decoding data: Data, options: DecodeOptions = DecodeOptions()) -> ImageError.Code? {
        errorCode {
            let decoder = IncrementalDecoder(options: options)
            try decoder.append(data)
            _ = decoder.currentImage()
            _ = try decoder.finish()
        }
    }

    /// The rows of `pixels`, each as its bytes.
    static func rows(_ pixels: PixelBuffer) -> [ArraySlice<UInt8>] {
        let bytes = pixels.bytes
        return stride(from: 0, to: bytes.count, by: pixels.bytesPerRow).map { bytes[$0..<$0 + pixels.bytesPerRow] }
    }

    /// For a partial image of a top-to-bottom decode: the count of leading rows equal to the final image's, when
    /// every later row is transparent black; `nil` when the partial image is not of that shape.
    static func completedRows(of partial: PixelBuffer, final: PixelBuffer) -> Int? {
        let partialRows = rows(partial), finalRows = rows(final)
        guard partialRows.count == finalRows.count else { return nil }
        let done = zip(partialRows, finalRows).prefix { $0.0 == $0.1 }.count
        guard partialRows[done...].allSatisfy({ $0.allSatisfy { $0 == 0 } }) else { return nil }
        return done
    }

    /// The JPEG coder's decode, done the way it does it: TurboJPEG to RGBA at a DCT scale of `eighths`/8.
    static func turboJPEG(_ data: Data, eighths: Int = 8) throws -> PixelBuffer {
        guard let handle = tjInitDecompress() else { throw ImageError(.imageTooLarge, "no TurboJPEG handle") }
        defer { tjDestroy(handle) }
        return try data.withUnsafeBytes { raw in
            let source = raw.bindMemory(to: UInt8.self).baseAddress
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            guard tjDecompressHeader3(handle, source, UInt(raw.count), &width, &height, &subsampling,
                                      &colorspace) == 0 else { throw ImageError(.badImageData, "header") }
            let scaledWidth = (Int(width) * eighths + 7) / 8, scaledHeight = (Int(height) * eighths + 7) / 8
            return try PixelBuffer(width: scaledWidth, height: scaledHeight) { output in
                guard tjDecompress2(handle, source, UInt(raw.count), output.bindMemory(to: UInt8.self).baseAddress,
                                    Int32(scaledWidth), 0, Int32(scaledHeight), Int32(TJPF_RGBA.rawValue), 0) == 0
                else { throw ImageError(.badImageData, "TurboJPEG failed") }
            }
        }
    }

    /// Whether the JPEG coder decodes on this branch (it is built in parallel; until then it is a placeholder).
    static let jpegCoderAvailable: Bool = {
        guard let data = try? Fixtures.data("incremental/baseline.jpg") else { return false }
        return (try? ImageCoders.shared.decode(data)) != nil
    }()
}
