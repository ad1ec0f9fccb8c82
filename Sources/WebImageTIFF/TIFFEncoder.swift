import CTIFF
import Foundation
import WebImage

/// TIFF through libtiff, written into memory: one page of 8-bit RGB, or RGBA with unassociated (straight) alpha,
/// in strips compressed with Deflate and the horizontal predictor.
enum TIFFEncoder {
    /// Encodes `pixels` as a TIFF file.
    static func encode(_ pixels: PixelBuffer, hasAlpha: Bool) throws -> Data {
        let output = Output()
        let handle = Unmanaged.passUnretained(output).toOpaque()
        guard let tiff = TIFFClientOpen("memory", "w", handle, outputRead, outputWrite, outputSeek, outputClose,
                                        outputSize, outputMap, outputUnmap)
        else { throw ImageError(.imageTooLarge, "TIFF: libtiff cannot start a file") }
        var closed = false
        defer { if !closed { TIFFClose(tiff) } }
        let channels = hasAlpha ? 4 : 3
        let rowsPerStrip = max(1, min(pixels.height, (64 * 1024) / max(1, pixels.width * channels)))
        let fields: [(UInt32, UInt32)] = [
            (UInt32(TIFFTAG_IMAGEWIDTH), UInt32(pixels.width)), (UInt32(TIFFTAG_IMAGELENGTH), UInt32(pixels.height)),
            (UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(rowsPerStrip)),
        ]
        let shortFields: [(UInt32, UInt16)] = [
            (UInt32(TIFFTAG_BITSPERSAMPLE), 8), (UInt32(TIFFTAG_SAMPLESPERPIXEL), UInt16(channels)),
            (UInt32(TIFFTAG_PHOTOMETRIC), UInt16(PHOTOMETRIC_RGB)),
            (UInt32(TIFFTAG_PLANARCONFIG), UInt16(PLANARCONFIG_CONTIG)),
            (UInt32(TIFFTAG_ORIENTATION), UInt16(ORIENTATION_TOPLEFT)),
            (UInt32(TIFFTAG_COMPRESSION), UInt16(COMPRESSION_ADOBE_DEFLATE)),
            (UInt32(TIFFTAG_PREDICTOR), UInt16(PREDICTOR_HORIZONTAL)),
        ]
        var taken = fields.allSatisfy { webimage_tiff_set_uint32(tiff, $0.0, $0.1) == 1 }
        taken = taken && shortFields.allSatisfy { webimage_tiff_set_uint16(tiff, $0.0, $0.1) == 1 }
        if hasAlpha {
            var unassociated = UInt16(EXTRASAMPLE_UNASSALPHA)
            taken = taken && webimage_tiff_set_extra_samples(tiff, 1, &unassociated) == 1
        }
        guard taken else { throw ImageError(.unsupportedFormat, "TIFF: libtiff refused a field") }
        var row = [UInt8](repeating: 0, count: pixels.width * channels)
        try pixels.withUnsafeBytes { source in
            for y in 0..<pixels.height {
                let start = y * pixels.bytesPerRow
                for x in 0..<pixels.width {
                    for channel in 0..<channels { row[x * channels + channel] = source[start + x * 4 + channel] }
                }
                guard TIFFWriteScanline(tiff, &row, UInt32(y), 0) == 1 else {
                    throw ImageError(.badImageData, "TIFF: libtiff could not write row \(y)")
                }
            }
        }
        closed = true
        TIFFClose(tiff)  // writes the directory
        guard !output.failed, !output.bytes.isEmpty else {
            throw ImageError(.badImageData, "TIFF: libtiff could not finish the file")
        }
        return withExtendedLifetime(output) { output.bytes }
    }

    /// The file being written, and where libtiff is in it.
    fileprivate final class Output {
        var bytes = Data()
        var offset = 0
        var failed = false
    }
}

private func output(_ handle: thandle_t?) -> TIFFEncoder.Output? {
    handle.map { Unmanaged<TIFFEncoder.Output>.fromOpaque($0).takeUnretainedValue() }
}

private let outputRead: TIFFReadWriteProc = { handle, buffer, size in
    guard let output = output(handle), let buffer, size > 0 else { return 0 }
    let length = max(0, min(Int(size), output.bytes.count - output.offset))
    if length > 0 {
        output.bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + output.offset, byteCount: length) }
    }
    output.offset += length
    return tmsize_t(length)
}

private let outputWrite: TIFFReadWriteProc = { handle, buffer, size in
    guard let output = output(handle), let buffer, size >= 0 else { return -1 }
    let length = Int(size), end = output.offset + length
    if end > output.bytes.count { output.bytes.append(Data(count: end - output.bytes.count)) }
    output.bytes.withUnsafeMutableBytes { ($0.baseAddress! + output.offset).copyMemory(from: buffer, byteCount: length) }
    output.offset = end
    return size
}

private let outputSeek: TIFFSeekProc = { handle, offset, whence in
    guard let output = output(handle) else { return toff_t(bitPattern: -1) }
    let origin: Int
    switch whence {
    case SEEK_CUR: origin = output.offset
    case SEEK_END: origin = output.bytes.count
    default: origin = 0
    }
    let target = origin + Int(Int64(bitPattern: offset))
    guard target >= 0 else {
        output.failed = true
        return toff_t(bitPattern: -1)
    }
    output.offset = target
    return toff_t(target)
}

private let outputClose: TIFFCloseProc = { _ in 0 }
private let outputSize: TIFFSizeProc = { handle in toff_t(output(handle)?.bytes.count ?? 0) }
private let outputMap: TIFFMapFileProc = { _, _, _ in 0 }
private let outputUnmap: TIFFUnmapFileProc = { _, _, _ in }
