import Foundation
import Testing
@testable import WebImage

/// The outputs of independent BlurHash and ThumbHash implementations (the BlurHash authors' C code, a Python
/// port of ThumbHash's reference, ImageHash's perceptual hash, scikit-image's SSIM) for the fixture images, made by `Fixtures/placeholders/make-placeholders.py`.
struct PlaceholderReferences: Decodable {
    struct ThumbHashReference: Decodable {
        let hash: String
        let average: [Double]
        let aspectRatio: Double
        let decodedSize: [Int]
    }

    let blurhash: [String: [String: String]]
    let thumbhash: [String: ThumbHashReference]
    let phash: [String: String]
    let ssim: [String: Double]

    static func load() throws -> PlaceholderReferences {
        try JSONDecoder().decode(PlaceholderReferences.self, from: Fixtures.data("placeholders/references.json"))
    }

    /// The pixels of a placeholder fixture PNG.
    static func pixels(_ name: String) throws -> PixelBuffer {
        try ImageCoders.shared.decode(Fixtures.data("placeholders/\(name)")).pixels
    }

    /// The largest difference of any channel of any pixel between `a` and `b`, which must be the same size.
    static func largestDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        #expect(a.size == b.size)
        return zip(a.bytes, b.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// The bytes of a hexadecimal string.
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }
}
