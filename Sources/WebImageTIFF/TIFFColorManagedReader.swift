import CTIFF
import WebImage

/// Pages whose colour is converted from the samples as stored rather than from libtiff's RGBA raster:
/// - CMYK pages (8 or 16 bits) with a CMYK ICC profile, which that raster would turn into RGB by the naive formula
///   with the profile ignored. 16-bit inks are rounded to 8 bits for Little CMS (a CIEDE2000 difference of a few
///   hundredths).
/// - 16-bit RGB pages with an RGB profile, converted while they still have their 16 bits, as 16-bit PNGs are.
///   Associated (premultiplied) alpha is left to the raster, which makes it straight at 8 bits first.
///
/// Other pages, and these pages when nothing is converted, keep the raster's path.
struct TIFFColorManagedReader {
    private enum Conversion {
        case inks(CMYKColorConversion)
        /// `alpha`: the sample holding straight alpha, if any.
        case deepRGB(DeepColorConversion, alpha: Int?)
    }

    private let rows: TIFFSampleRows
    private let conversion: Conversion

    /// Width and height as stored (before the orientation tag is applied).
    var storedSize: PixelSize { rows.storedSize }
    /// The orientation tag (274); ``Orientation/up`` when absent or bad.
    var orientation: Orientation { rows.orientation }

    /// The reader for the current directory described by `profile`, or `nil` when the raster's path serves it.
    /// `convertsDeepSamples` is false for a decode that converts after its scale-down.
    init?(_ file: TIFFMemoryFile, profile: ColorProfile?, handling: DecodeOptions.ColorHandling,
          convertsDeepSamples: Bool) {
        guard let profile, let rows = TIFFSampleRows(file) else { return nil }
        if rows.isCMYK {
            let inks = CMYKColorConversion(profile: profile, handling: handling)
            guard inks.hasProfile else { return nil }
            conversion = .inks(inks)
        } else if convertsDeepSamples, rows.photometric == UInt16(PHOTOMETRIC_RGB), rows.bitsPerSample == 16,
                  rows.samplesPerPixel >= 3,
                  let deep = DeepColorConversion(from: profile, for: handling) {
            var alpha: Int?
            switch rows.extraSamples.first.map(Int32.init) {
            case EXTRASAMPLE_ASSOCALPHA: return nil
            case EXTRASAMPLE_UNASSALPHA: alpha = 3
            default: alpha = nil
            }
            conversion = .deepRGB(deep, alpha: alpha)
        } else {
            return nil
        }
        self.rows = rows
    }

    /// Whether the page keeps an alpha channel.
    var hasAlpha: Bool {
        if case .deepRGB(_, let alpha) = conversion { return alpha != nil }
        return false
    }

    /// The profile the converted pixels carry (``ColorProfile/displayP3`` when converted into it).
    var resultProfile: ColorProfile? {
        switch conversion {
        case .inks(let inks): inks.resultProfile
        case .deepRGB(let deep, _): deep.resultProfile
        }
    }

    /// Writes the page, rows and columns as stored, into `raster` as RGBA8 with straight alpha.
    func read(into raster: UnsafeMutableRawBufferPointer) throws {
        let pixels = raster.baseAddress!
        let width = storedSize.width, samplesPerPixel = rows.samplesPerPixel
        switch conversion {
        case .inks(let inks):
            let wide = rows.bitsPerSample == 16
            try rows.forEachRun { samples, count, row, column in
                let destination = (pixels + (row * width + column) * 4).assumingMemoryBound(to: UInt8.self)
                for pixel in 0..<count {
                    for ink in 0..<4 {
                        let index = pixel * samplesPerPixel + ink
                        destination[pixel * 4 + ink] = wide
                            ? UInt8((UInt32(samples.load(fromByteOffset: index * 2, as: UInt16.self)) * 255 + 32767) / 65535)
                            : samples.load(fromByteOffset: index, as: UInt8.self)
                    }
                }
            }
            inks.convert(raster, inverted: false)
        case .deepRGB(let deep, let alpha):
            let row16 = UnsafeMutablePointer<UInt16>.allocate(capacity: width * 4)
            defer { row16.deallocate() }
            try rows.forEachRun { samples, count, row, column in
                let source = samples.assumingMemoryBound(to: UInt16.self)
                for pixel in 0..<count {
                    let first = source + pixel * samplesPerPixel
                    row16[pixel * 4] = first[0]
                    row16[pixel * 4 + 1] = first[1]
                    row16[pixel * 4 + 2] = first[2]
                    row16[pixel * 4 + 3] = alpha.map { first[$0] } ?? .max
                }
                deep.convert(UnsafeRawPointer(row16), into: pixels + (row * width + column) * 4, count: count)
            }
        }
    }
}
