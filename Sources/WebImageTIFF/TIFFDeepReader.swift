import CTIFF
import WebImage

/// 16-bit RGB and gray pages kept with their 16 bits (``DecodeOptions/keepsHighBitDepth``): read from the samples as
/// stored, straight alpha when the page has unassociated alpha, colour converted in 16 bits. Pages with associated
/// (premultiplied) alpha, other photometrics and 8-bit pages are left to the usual readers.
struct TIFFDeepReader {
    private let rows: TIFFSampleRows
    private let gray: Bool
    /// The sample holding straight alpha, if any.
    private let alpha: Int?

    /// The reader for the current directory, or `nil` when it is not a 16-bit RGB or gray page it reads.
    init?(_ file: TIFFMemoryFile) {
        guard let rows = TIFFSampleRows(file), rows.bitsPerSample == 16 else { return nil }
        switch Int32(rows.photometric) {
        case PHOTOMETRIC_RGB where rows.samplesPerPixel >= 3: gray = false
        case PHOTOMETRIC_MINISBLACK: gray = true
        default: return nil
        }
        switch rows.extraSamples.first.map(Int32.init) {
        case EXTRASAMPLE_ASSOCALPHA: return nil
        case EXTRASAMPLE_UNASSALPHA: alpha = gray ? 1 : 3
        default: alpha = nil
        }
        self.rows = rows
    }

    /// Width and height as stored (before the orientation tag is applied).
    var storedSize: PixelSize { rows.storedSize }
    /// The orientation tag (274); ``Orientation/up`` when absent or bad.
    var orientation: Orientation { rows.orientation }
    /// Whether the page keeps an alpha channel.
    var hasAlpha: Bool { alpha != nil }

    /// The page as RGBA16, rows and columns as stored, converted by `conversion` (one that keeps the depth).
    func read(converting conversion: DeepColorConversion?) throws -> DeepPixelBuffer {
        let width = storedSize.width, samplesPerPixel = rows.samplesPerPixel
        return try DeepPixelBuffer(width: width, height: storedSize.height, significantBits: 16) { output in
            // Zeroed first: a damaged strip that stops early must not leave uninitialised samples.
            output.initialize(repeating: 0)
            try rows.forEachRun { samples, count, row, column in
                let source = samples.assumingMemoryBound(to: UInt16.self)
                let destination = output.baseAddress! + (row * width + column) * 4
                for pixel in 0..<count {
                    let first = source + pixel * samplesPerPixel
                    destination[pixel * 4] = first[0]
                    destination[pixel * 4 + 1] = gray ? first[0] : first[1]
                    destination[pixel * 4 + 2] = gray ? first[0] : first[2]
                    destination[pixel * 4 + 3] = alpha.map { first[$0] } ?? .max
                }
                conversion?.convert(UnsafeRawPointer(destination), into: destination, count: count)
            }
        }
    }
}
