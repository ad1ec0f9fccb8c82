import CTurboJPEG
import Foundation

/// The JPEG decoding path behind ``JPEGCoder``: markers, limits, DCT scaling, TurboJPEG, colour, orientation.
enum JPEGDecoder {
    /// libjpeg refuses frames wider or taller than this (JPEG_MAX_DIMENSION).
    static let maximumDimension = 65_500

    /// TurboJPEG flags for every decode: accurate integer IDCT and smooth chroma upsampling (its defaults, the
    /// same as djpeg and Pillow), and a cap on progressive scans against scan-flooding files.
    static let decodeFlags = Int32(TJFLAG_LIMITSCANS)

    static func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try data.withUnsafeBytes { bytes in
            let markers = try JPEGMarkerScanner.scan(bytes)
            try checkBeforeDecoding(markers, bytes: bytes, limits: options.limits)
            let orientation = markers.exif
                .flatMap { EXIFReader.orientation(in: UnsafeRawBufferPointer(rebasing: bytes[$0])) } ?? .up
            let target = options.storedTargetSize(for: markers.frameSize, orientation: orientation)
            let factor = JPEGScaling.factor(for: markers.frameSize, target: target)
            let profile = markers.colorProfile(in: bytes)
            let cmyk = CMYKColorConversion(profile: profile, handling: options.colorHandling)
            let stored = try decodePixels(bytes, markers: markers, factor: factor, cmyk: cmyk)
            let finished = try options.finish(stored, sourceSize: markers.frameSize, orientation: orientation)
            var image = Image(frames: [ImageFrame(pixels: finished.pixels)], format: .jpeg,
                              scale: options.resolvedScale, orientation: orientation,
                              flags: finished.reduced ? .thumbnail : [])
            image.colorProfile = markers.componentCount == 4 ? cmyk.resultProfile : profile
            return image
        }
    }

    /// Everything that can refuse the data from its header alone, before any pixel memory exists.
    static func checkBeforeDecoding(_ markers: JPEGMarkers, bytes: UnsafeRawBufferPointer, limits: DecodeLimits) throws {
        try limits.check(markers.frameSize)
        let size = markers.frameSize
        guard size.width <= maximumDimension, size.height <= maximumDimension else {
            throw ImageError(.imageTooLarge, "\(size) is beyond libjpeg's \(maximumDimension)-pixel side limit")
        }
        guard markers.precision == 8 else {
            throw ImageError(.unsupportedFormat, "\(markers.precision)-bit JPEG samples are not supported")
        }
        guard !markers.isUnsupportedProcess else {
            throw ImageError(.unsupportedFormat, "lossless and hierarchical JPEG are not supported")
        }
        guard JPEGMarkerScanner.hasEndOfImage(bytes, after: markers.scanStart) else {
            throw ImageError(.badImageData, "the JPEG data is truncated: no end-of-image marker after the scan data")
        }
    }

    /// Decodes the stored (not yet oriented) pixels at `factor`, straight into the returned buffer's memory.
    /// `readingPrefixes` off sends a progressive file's start to libjpeg too (for comparing the two).
    static func decodePixels(_ bytes: UnsafeRawBufferPointer, markers: JPEGMarkers, factor: JPEGScaleFactor,
                             cmyk: CMYKColorConversion, readingPrefixes: Bool = true) throws -> PixelBuffer
    {
        guard let source = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageError(.badImageData, "the data is empty")
        }
        // The start of a progressive file (a download stopped early for a thumbnail) is read at 1/8 from the few
        // coefficients that scale uses, without libjpeg's whole-image coefficient buffer.
        if readingPrefixes, factor == JPEGScaleFactor(numerator: 1, denominator: 8), markers.frameMarker == 0xC2,
           let pixels = JPEGEighthScaleDecoder.decode(bytes) {
            return pixels
        }
        // A progressive file's scans are counted, and a damaged progression refused, while it decodes.
        if markers.frameMarker == 0xC2 {
            return try JPEGLibjpegDecode.decodePixels(bytes, factor: factor, cmyk: cmyk,
                                                      inverted: markers.adobeTransform != nil)
        }
        return try TurboJPEGHandle.withDecompressor { handle in
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            if tjDecompressHeader3(handle.raw, source, UInt(bytes.count), &width, &height, &subsampling, &colorspace) != 0 {
                let failure = handle.lastFailure
                if failure.isUnknownSubsampling {
                    return try JPEGLibjpegDecode.decodePixels(bytes, factor: factor, cmyk: cmyk,
                                                              inverted: markers.adobeTransform != nil)
                }
                try accept(failure, while: "reading the JPEG header")
            }
            let headerSize = PixelSize(width: Int(width), height: Int(height))
            guard headerSize == markers.frameSize else {
                throw ImageError(.badImageData, "the JPEG header declares \(headerSize), its frame \(markers.frameSize)")
            }
            let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
            // CMYK has four bytes per pixel like RGBA, so it lands in the same buffer and is converted in place.
            let pixelFormat = Int32((isCMYK ? TJPF_CMYK : TJPF_RGBA).rawValue)
            let output = factor.scaled(headerSize)
            return try PixelBuffer(width: output.width, height: output.height) { destination in
                let status = tjDecompress2(
                    handle.raw, source, UInt(bytes.count), destination.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    Int32(output.width), Int32(output.width * PixelBuffer.bytesPerPixel), Int32(output.height),
                    pixelFormat, decodeFlags)
                if status != 0 { try accept(handle.lastFailure, while: "decoding the JPEG") }
                if isCMYK { cmyk.convert(destination, inverted: markers.adobeTransform != nil) }
            }
        }
    }

    /// Returns when `failure` is a harmless warning (the pixels are complete); throws otherwise.
    static func accept(_ failure: TurboJPEGFailure, while step: String) throws {
        guard failure.isHarmless else {
            throw ImageError(.badImageData, "\(step): \(failure.message)")
        }
    }
}
