import Foundation
import FuzzSupport
@testable import WebImage

/// The first-frame early stops on any bytes, for a decode of the first frame only: the GIF scanner
/// (``GIFPrefixScanner``: blocks, colour tables, sub-blocks) and the animated-WebP one (``WebPPrefixScanner``:
/// `VP8X` flags, chunk sizes, padding). The first byte picks the size of the pieces the rest arrives in. The
/// verdict must not depend on how the bytes arrive, a claimed cut must lie inside the data, and the cut prefix
/// must decode to an image or a typed error. Seeds are whole animations of both formats.
func fuzzFramePrefix(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let piece = Int(input.takeByte()) + 1
    let data = input.payload
    let options = DecodeOptions(firstFrameOnly: true)
    let gif = verdictInPiecesAndAtOnce(data, piece: piece) { GIFPrefixScanner(planning: { _ in options }) }
    if case .enough(let length) = gif {
        precondition(length > 13 && length <= data.count, "a GIF cut at \(length) of \(data.count)")
        _ = try? GIFCoder().decode(GIFPrefixScanner.prefix(of: data, length: length), options: options)
    }
    let webp = verdictInPiecesAndAtOnce(data, piece: piece) { WebPPrefixScanner(planning: { _ in options }) }
    if case .enough(let length) = webp {
        precondition(length > 30 && length <= data.count, "a WebP cut at \(length) of \(data.count)")
        _ = try? WebPCoder().decode(WebPPrefixScanner.prefix(of: data, length: length), options: options)
    }
    return 0
}
