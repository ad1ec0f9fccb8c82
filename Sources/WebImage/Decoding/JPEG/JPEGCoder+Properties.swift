import Foundation

extension JPEGCoder {
    /// Reads a JPEG's properties from its marker segments (frame header, EXIF orientation, ICC profile) and checks, as the
    /// decoder does, that the file is one TurboJPEG can read and that it ends with its end-of-image marker. The
    /// entropy-coded data is only scanned for that marker, never decoded.
    public func properties(of data: Data) throws -> ImageProperties {
        try data.withUnsafeBytes { bytes in
            let markers = try JPEGMarkerScanner.scan(bytes)
            // The decoder's header checks, without the pixel limits: nothing is allocated here.
            let unlimited = DecodeLimits(maxPixels: .max, maxFrames: .max, maxTotalPixels: .max)
            try JPEGDecoder.checkBeforeDecoding(markers, bytes: bytes, limits: unlimited)
            let orientation = markers.exif
                .flatMap { EXIFReader.orientation(in: UnsafeRawBufferPointer(rebasing: bytes[$0])) } ?? .up
            var properties = ImageProperties(format: .jpeg, size: orientation.displayedSize(of: markers.frameSize),
                                             orientation: orientation)
            let untagged: ColorSpace = markers.componentCount == 1 ? .gray : markers.componentCount == 4 ? .cmyk : .sRGB
            properties.describeColor(markers.colorProfile(in: bytes)?.unlessSRGB, untagged: untagged)
            return properties
        }
    }
}
