import CTIFF
import WebImage

/// 16-bit CMYK pages without an ICC profile, which libtiff's RGBA reader refuses ("can not handle image")
/// although they are what ImageMagick writes for `-colorspace CMYK` (its samples are 16-bit unless told
/// otherwise) and what print workflows keep. (A page with a CMYK profile is ``TIFFColorManagedReader``'s.)
///
/// Ink becomes light the way libtiff's 8-bit CMYK reader makes it, red = (1 − C)(1 − K) and so on, computed on the
/// 16-bit samples before rounding to 8 bits. Extra samples (alpha) are dropped, as that reader drops them, so a
/// page reads the same at either depth.
struct TIFFCMYK16Reader {
    private let rows: TIFFSampleRows

    /// Width and height as stored (before the orientation tag is applied).
    var storedSize: PixelSize { rows.storedSize }
    /// The orientation tag (274); ``Orientation/up`` when absent or bad.
    var orientation: Orientation { rows.orientation }

    /// The reader of the current directory, or `nil` when that page is not 16-bit interleaved CMYK.
    init?(_ file: TIFFMemoryFile) {
        guard let rows = TIFFSampleRows(file), rows.isCMYK, rows.bitsPerSample == 16 else { return nil }
        self.rows = rows
    }

    /// Writes the page, rows and columns as stored, into `raster` as opaque RGBA8 (`width * 4` bytes a row).
    func read(into raster: UnsafeMutableRawBufferPointer) throws {
        let pixels = raster.bindMemory(to: UInt8.self).baseAddress!
        let width = storedSize.width, samplesPerPixel = rows.samplesPerPixel
        try rows.forEachRun { samples, count, row, column in
            let ink = samples.assumingMemoryBound(to: UInt16.self)
            let destination = pixels + (row * width + column) * 4
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
    }

    /// The 8-bit light left by `ink` over paper that black has already darkened to `white` (both 16-bit).
    @inline(__always)
    private static func light(_ ink: UInt16, _ white: UInt32) -> UInt8 {
        // 65 535² still fits in 32 bits.
        let light16 = (65535 - UInt32(ink)) * white / 65535
        return UInt8((light16 * 255 + 32767) / 65535)
    }
}
