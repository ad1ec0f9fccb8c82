import CTIFF
import WebImage

/// 16-bit CMYK pages, which libtiff's RGBA reader refuses ("can not handle image") although they are what
/// ImageMagick writes for `-colorspace CMYK` (its samples are 16-bit unless told otherwise) and what print
/// workflows keep.
///
/// Strips or tiles, any compression libtiff decodes, samples interleaved (planar configuration 1). Ink becomes
/// light the way libtiff's 8-bit CMYK reader makes it, red = (1 − C)(1 − K) and so on, with no ICC profile, but
/// computed on the 16-bit samples before rounding to 8 bits. Extra samples (alpha) are dropped, as that reader
/// drops them, so a page reads the same at either depth.
struct TIFFCMYK16Reader {
    /// Width and height as stored (before the orientation tag is applied).
    let storedSize: PixelSize
    /// The orientation tag (274); ``Orientation/up`` when absent or bad.
    let orientation: Orientation

    private let samplesPerPixel: Int
    private let file: TIFFMemoryFile

    /// Four inks and up to four extra samples: more is not a CMYK image anyone writes, and each sample widens
    /// the buffers read into.
    private static let maximumSamples: UInt16 = 8
    /// The largest tile read: 16 megapixels, far above the 256–1024 px squares writers use; a bigger one would
    /// only make a small file ask for a huge buffer.
    private static let maximumTilePixels = 1 << 24

    /// The reader of the current directory, or `nil` when that page is not 16-bit interleaved CMYK.
    init?(_ file: TIFFMemoryFile) {
        let tiff = file.tiff
        func tag16(_ tag: Int32) -> UInt16? {
            var value: UInt16 = 0
            return webimage_tiff_get_uint16(tiff, UInt32(tag), &value) == 1 ? value : nil
        }
        func tag32(_ tag: Int32) -> UInt32? {
            var value: UInt32 = 0
            return webimage_tiff_get_uint32(tiff, UInt32(tag), &value) == 1 ? value : nil
        }
        guard tag16(TIFFTAG_PHOTOMETRIC) == UInt16(PHOTOMETRIC_SEPARATED),
              tag16(TIFFTAG_INKSET) == UInt16(INKSET_CMYK),
              tag16(TIFFTAG_BITSPERSAMPLE) == 16,
              tag16(TIFFTAG_SAMPLEFORMAT) == UInt16(SAMPLEFORMAT_UINT),
              tag16(TIFFTAG_PLANARCONFIG) == UInt16(PLANARCONFIG_CONTIG),
              let samples = tag16(TIFFTAG_SAMPLESPERPIXEL), (4...Self.maximumSamples).contains(samples),
              let width = tag32(TIFFTAG_IMAGEWIDTH), width > 0,
              let height = tag32(TIFFTAG_IMAGELENGTH), height > 0
        else { return nil }
        self.file = file
        samplesPerPixel = Int(samples)
        storedSize = PixelSize(width: Int(width), height: Int(height))
        orientation = tag16(TIFFTAG_ORIENTATION).flatMap { Orientation(rawValue: Int($0)) } ?? .up
    }

    /// Writes the page, rows and columns as stored, into `raster` as opaque RGBA8 (`width * 4` bytes a row).
    func read(into raster: UnsafeMutableRawBufferPointer) throws {
        let pixels = raster.bindMemory(to: UInt8.self).baseAddress!
        if TIFFIsTiled(file.tiff) != 0 {
            try readTiles(into: pixels)
        } else {
            try readStrips(into: pixels)
        }
    }

    /// Stripped pages are read a row at a time (libtiff decodes any strip sequentially), so a page stored as one
    /// strip does not need a buffer of the whole page.
    private func readStrips(into pixels: UnsafeMutablePointer<UInt8>) throws {
        let tiff = file.tiff, width = storedSize.width
        guard Int(TIFFScanlineSize(tiff)) == width * samplesPerPixel * 2 else {
            throw file.error(.badImageData, "the row size does not match the samples")
        }
        var row = [UInt16](repeating: 0, count: width * samplesPerPixel)
        for y in 0..<storedSize.height {
            let status = row.withUnsafeMutableBytes { TIFFReadScanline(tiff, $0.baseAddress, UInt32(y), 0) }
            try file.checkErrors("reading row \(y)")
            guard status == 1 else { throw file.error(.badImageData, "row \(y) cannot be read") }
            row.withUnsafeBufferPointer { convert($0.baseAddress!, count: width, to: pixels + y * width * 4) }
        }
    }

    private func readTiles(into pixels: UnsafeMutablePointer<UInt8>) throws {
        let tiff = file.tiff, width = storedSize.width, height = storedSize.height
        var tileWidth: UInt32 = 0, tileHeight: UInt32 = 0
        guard webimage_tiff_get_uint32(tiff, UInt32(TIFFTAG_TILEWIDTH), &tileWidth) == 1,
              webimage_tiff_get_uint32(tiff, UInt32(TIFFTAG_TILELENGTH), &tileHeight) == 1,
              tileWidth > 0, tileHeight > 0
        else { throw file.error(.badImageData, "a tiled page without its tile size") }
        let columns = Int(tileWidth), rows = Int(tileHeight)
        guard columns <= Self.maximumTilePixels / rows else {
            throw file.error(.badImageData, "tiles of \(columns)×\(rows) pixels, more than 16 megapixels")
        }
        let tileSamples = columns * rows * samplesPerPixel
        guard Int(TIFFTileSize(tiff)) == tileSamples * 2 else {
            throw file.error(.badImageData, "the tile size does not match the samples")
        }
        var tile = [UInt16](repeating: 0, count: tileSamples)
        for top in stride(from: 0, to: height, by: rows) {
            for left in stride(from: 0, to: width, by: columns) {
                let index = TIFFComputeTile(tiff, UInt32(left), UInt32(top), 0, 0)
                let read = tile.withUnsafeMutableBytes {
                    Int(TIFFReadEncodedTile(tiff, index, $0.baseAddress, tmsize_t(tileSamples * 2)))
                }
                try file.checkErrors("reading tile \(index)")
                guard read == tileSamples * 2 else { throw file.error(.badImageData, "tile \(index) is short") }
                tile.withUnsafeBufferPointer { samples in
                    for row in 0..<min(rows, height - top) {
                        convert(samples.baseAddress! + row * columns * samplesPerPixel,
                                count: min(columns, width - left), to: pixels + ((top + row) * width + left) * 4)
                    }
                }
            }
        }
    }

    /// Turns `count` pixels of interleaved 16-bit ink into opaque RGBA8.
    private func convert(_ ink: UnsafePointer<UInt16>, count: Int, to destination: UnsafeMutablePointer<UInt8>) {
        for pixel in 0..<count {
            let source = ink + pixel * samplesPerPixel
            let white = 65535 - UInt32(source[3])
            let target = destination + pixel * 4
            target[0] = Self.light(source[0], white)
            target[1] = Self.light(source[1], white)
            target[2] = Self.light(source[2], white)
            target[3] = 255
        }
    }

    /// The 8-bit light left by `ink` over paper that black has already darkened to `white` (both 16-bit).
    @inline(__always)
    private static func light(_ ink: UInt16, _ white: UInt32) -> UInt8 {
        // 65 535² still fits in 32 bits.
        let light16 = (65535 - UInt32(ink)) * white / 65535
        return UInt8((light16 * 255 + 32767) / 65535)
    }
}
