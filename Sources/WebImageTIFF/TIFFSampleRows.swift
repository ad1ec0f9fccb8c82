import CTIFF
import WebImage

/// A page's samples as stored, row by row: unsigned 8 or 16-bit samples interleaved (planar configuration 1), in
/// strips or tiles, any compression libtiff decodes. What the readers that libtiff's RGBA interface cannot serve
/// build on: 16-bit CMYK, and pages whose colour is converted from the samples themselves.
struct TIFFSampleRows {
    /// Width and height as stored (before the orientation tag is applied).
    let storedSize: PixelSize
    /// The orientation tag (274); ``Orientation/up`` when absent or bad.
    let orientation: Orientation
    /// The photometric interpretation (262).
    let photometric: UInt16
    let samplesPerPixel: Int
    /// 8 or 16.
    let bitsPerSample: Int
    /// The kinds of the samples after the colour ones (338), in order.
    let extraSamples: [UInt16]

    private let file: TIFFMemoryFile

    /// Up to eight samples a pixel: more is not an image anyone writes, and each sample widens the rows read.
    private static let maximumSamples: UInt16 = 8
    /// The largest tile read: 16 megapixels, far above the 256–1024 px squares writers use; a bigger one would
    /// only make a small file ask for a huge buffer.
    private static let maximumTilePixels = 1 << 24

    /// The rows of the current directory, or `nil` when its samples are not unsigned, 8 or 16-bit, interleaved.
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
        guard let photometric = tag16(TIFFTAG_PHOTOMETRIC),
              let bits = tag16(TIFFTAG_BITSPERSAMPLE), bits == 8 || bits == 16,
              tag16(TIFFTAG_SAMPLEFORMAT) == UInt16(SAMPLEFORMAT_UINT),
              tag16(TIFFTAG_PLANARCONFIG) == UInt16(PLANARCONFIG_CONTIG),
              let samples = tag16(TIFFTAG_SAMPLESPERPIXEL), (1...Self.maximumSamples).contains(samples),
              let width = tag32(TIFFTAG_IMAGEWIDTH), width > 0,
              let height = tag32(TIFFTAG_IMAGELENGTH), height > 0
        else { return nil }
        var count: UInt16 = 0
        var kinds: UnsafeMutablePointer<UInt16>?
        if webimage_tiff_get_extra_samples(tiff, &count, &kinds) == 1, let kinds, count < samples {
            extraSamples = Array(UnsafeBufferPointer(start: kinds, count: Int(count)))
        } else {
            extraSamples = []
        }
        self.file = file
        self.photometric = photometric
        samplesPerPixel = Int(samples)
        bitsPerSample = Int(bits)
        storedSize = PixelSize(width: Int(width), height: Int(height))
        orientation = tag16(TIFFTAG_ORIENTATION).flatMap { Orientation(rawValue: Int($0)) } ?? .up
    }

    /// Whether the page holds four CMYK inks (separated, ink set 332 CMYK), and perhaps extra samples after them.
    var isCMYK: Bool {
        var inks: UInt16 = 0
        return photometric == UInt16(PHOTOMETRIC_SEPARATED) && samplesPerPixel >= 4
            && webimage_tiff_get_uint16(file.tiff, UInt32(TIFFTAG_INKSET), &inks) == 1 && inks == UInt16(INKSET_CMYK)
    }

    /// Hands every row to `body`, top to bottom as stored: its first pixel's samples (in the machine's byte order
    /// for 16 bits), the number of pixels in the run, and the row and column the run starts at. A tiled page
    /// gives each row once per tile it crosses.
    func forEachRun(_ body: (UnsafeRawPointer, _ count: Int, _ row: Int, _ column: Int) -> Void) throws {
        if TIFFIsTiled(file.tiff) != 0 {
            try readTiles(body)
        } else {
            try readStrips(body)
        }
    }

    private var bytesPerPixel: Int { samplesPerPixel * bitsPerSample / 8 }

    /// Stripped pages are read a row at a time (libtiff decodes any strip sequentially), so a page stored as one
    /// strip does not need a buffer of the whole page.
    private func readStrips(_ body: (UnsafeRawPointer, Int, Int, Int) -> Void) throws {
        let tiff = file.tiff, width = storedSize.width
        guard Int(TIFFScanlineSize(tiff)) == width * bytesPerPixel else {
            throw file.error(.badImageData, "the row size does not match the samples")
        }
        let row = UnsafeMutableRawBufferPointer.allocate(byteCount: width * bytesPerPixel, alignment: 16)
        defer { row.deallocate() }
        for y in 0..<storedSize.height {
            let status = TIFFReadScanline(tiff, row.baseAddress, UInt32(y), 0)
            try file.checkErrors("reading row \(y)")
            guard status == 1 else { throw file.error(.badImageData, "row \(y) cannot be read") }
            body(UnsafeRawPointer(row.baseAddress!), width, y, 0)
        }
    }

    private func readTiles(_ body: (UnsafeRawPointer, Int, Int, Int) -> Void) throws {
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
        let tileBytes = columns * rows * bytesPerPixel
        guard Int(TIFFTileSize(tiff)) == tileBytes else {
            throw file.error(.badImageData, "the tile size does not match the samples")
        }
        let tile = UnsafeMutableRawBufferPointer.allocate(byteCount: tileBytes, alignment: 16)
        defer { tile.deallocate() }
        for top in stride(from: 0, to: height, by: rows) {
            for left in stride(from: 0, to: width, by: columns) {
                let index = TIFFComputeTile(tiff, UInt32(left), UInt32(top), 0, 0)
                let read = Int(TIFFReadEncodedTile(tiff, index, tile.baseAddress, tmsize_t(tileBytes)))
                try file.checkErrors("reading tile \(index)")
                guard read == tileBytes else { throw file.error(.badImageData, "tile \(index) is short") }
                for row in 0..<min(rows, height - top) {
                    body(UnsafeRawPointer(tile.baseAddress! + row * columns * bytesPerPixel),
                         min(columns, width - left), top + row, left)
                }
            }
        }
    }
}
