import Foundation
import FuzzSupport
@testable import WebImage

/// The progressive-JPEG early stop (``JPEGPrefixScanner``) on any bytes, at 1/8 scale (a 1×1 thumbnail): the
/// first byte picks the size of the pieces the rest arrives in. The verdict must not depend on how the bytes
/// arrive, a claimed cut must lie inside the data at a marker, and the cut prefix must decode to an image or a
/// typed error. The bytes as they are also go to the eighth-scale reader of such prefixes, which must return an
/// image of the frame's size over 8 or nothing.
func fuzzJPEGPrefix(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let piece = Int(input.takeByte()) + 1
    let data = input.payload
    let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 1, height: 1))
    if let pixels = data.withUnsafeBytes({ JPEGEighthScaleDecoder.decode($0) }) {
        precondition(pixels.width > 0 && pixels.height > 0, "an empty image")
    }
    let once = verdictInPiecesAndAtOnce(data, piece: piece) { JPEGPrefixScanner(options: options) }
    if case .enough(let length) = once {
        precondition(length < data.count && data[data.startIndex + length] == 0xFF, "a cut at \(length) is no marker")
        _ = try? JPEGCoder().decode(JPEGPrefixScanner.prefix(of: data, length: length), options: options)
    }
    return 0
}
