import Foundation
import FuzzSupport
@testable import WebImage

/// The progressive-JPEG early stop (``JPEGPrefixScanner``) on any bytes, at 1/8 scale (a 1×1 thumbnail): the
/// first byte picks the size of the pieces the rest arrives in. The verdict must not depend on how the bytes
/// arrive, a claimed cut must lie inside the data at a marker, and the cut prefix must decode to an image or a
/// typed error. The bytes as they are also go to the eighth-scale reader of such prefixes, which must return an
/// image of the frame's size over 8 or nothing. The GIF early stop (``GIFPrefixScanner``, for a first-frame
/// decode) gets the same bytes after a GIF signature, and the animated-WebP one (``WebPPrefixScanner``) after a
/// RIFF header and the start of a `VP8X` chunk (its flags and canvas come from the bytes), under the same rules:
/// the same verdict in pieces as at once, a cut inside the data, and the cut prefix decoded to an image or a
/// typed error.
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
    fuzzGIFPrefix(Data("GIF89a".utf8) + data, piece: piece)
    fuzzWebPPrefix(Data("RIFF\0\0\0\0WEBPVP8X\u{0A}\0\0\0".utf8) + data, piece: piece)
    return 0
}

private func fuzzWebPPrefix(_ data: Data, piece: Int) {
    let options = DecodeOptions(firstFrameOnly: true)
    let once = verdictInPiecesAndAtOnce(data, piece: piece) { WebPPrefixScanner(planning: { _ in options }) }
    if case .enough(let length) = once {
        precondition(length > 30 && length <= data.count, "a WebP cut at \(length) of \(data.count)")
        _ = try? WebPCoder().decode(WebPPrefixScanner.prefix(of: data, length: length), options: options)
    }
}

private func fuzzGIFPrefix(_ data: Data, piece: Int) {
    let options = DecodeOptions(firstFrameOnly: true)
    let once = verdictInPiecesAndAtOnce(data, piece: piece) { GIFPrefixScanner(planning: { _ in options }) }
    if case .enough(let length) = once {
        precondition(length > 13 && length <= data.count, "a GIF cut at \(length) of \(data.count)")
        _ = try? GIFCoder().decode(GIFPrefixScanner.prefix(of: data, length: length), options: options)
    }
}

/// The verdict of a scanner `make` gives on `data` at once, after checking that another fed it in pieces of
/// `piece` bytes comes to the same.
private func verdictInPiecesAndAtOnce<Scanner: PrefixScanner>(
    _ data: Data, piece: Int, _ make: () -> Scanner
) -> PrefixVerdict {
    var whole = make()
    let once = data.withUnsafeBytes { whole.advance($0) }
    var pieces = make()
    var verdict = PrefixVerdict.needsMore
    var end = 0
    while verdict == .needsMore, end < data.count {
        end = min(data.count, end + piece)
        verdict = data.prefix(end).withUnsafeBytes { pieces.advance($0) }
    }
    precondition(verdict == once, "\(Scanner.self): \(verdict) in pieces of \(piece), \(once) at once")
    return once
}
