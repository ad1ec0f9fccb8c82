import Foundation

/// What a quality search aims for.
public enum EncodeTarget: Sendable, Hashable {
    /// The smallest output whose SSIM against the image (``StructuralSimilarity``) is at least this (0 to 1).
    case ssim(Double)
    /// The output whose DSSIM against the image, (1 − SSIM) / 2 (0 for identical pixels), is nearest this
    /// target; the search stops at the first quality within `allowedError` of it. What imgproxy's autoquality
    /// aims for (its default: 0.02 within 0.002).
    case dssim(Double, allowedError: Double)
    /// The best output of at most this many bytes.
    case bytes(Int)

    /// Dissimilarity from similarity: (1 − SSIM) / 2.
    public static func dssim(ofSSIM ssim: Double) -> Double { (1 - ssim) / 2 }
}

/// The output a quality search chose, the quality it was encoded at, and how alike it measured.
public struct QualitySearchResult: Sendable {
    /// The encoded bytes.
    public let data: Data
    /// The quality they were encoded at, as ``EncodeOptions/quality`` takes it (0 to 1, in steps of 0.01).
    public let quality: Double
    /// The SSIM of the output, decoded, against the image.
    public let ssim: Double
    /// The DSSIM of the output against the image, (1 − ``ssim``) / 2.
    public var dssim: Double { EncodeTarget.dssim(ofSSIM: ssim) }
    /// How many times the image was encoded to find it.
    public let encodeCount: Int
}

extension ImageCoders {
    /// Encodes the first frame of `image` (with its colour profile and metadata) at the quality, among the whole percentages in `qualityRange`, that
    /// meets `target`: the lowest quality whose output is at least `.ssim(x)` alike, the first found whose DSSIM
    /// is within the allowed error of `.dssim(x)` (else the lowest whose DSSIM is at most x, else the highest
    /// quality), or the highest whose output fits in `.bytes(n)`. Assumes size and similarity grow with quality
    /// (true of the lossy encoders up to their rounding), which lets a bisection find it in about log2 of the
    /// range's width encodes, each decoded again to be measured for a similarity target (a byte target measures
    /// only the output it returns). When no quality in the range meets the target, the nearest end is returned
    /// (the highest quality for an unreachable similarity, the lowest for a byte budget too small), so check the
    /// result.
    ///
    /// For lossy formats (JPEG, WebP, AVIF, JPEG XL, HEIC); a format that ignores quality gives the same output at
    /// every step. Throws what encoding and decoding throw, and `ImageError.Code.invalidParameter` for a range
    /// outside 0...100 or a target out of its range, or an image under SSIM's 11 × 11 window.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions = EncodeOptions(),
                       target: EncodeTarget, qualityRange: ClosedRange<Int> = 10...95) throws -> QualitySearchResult {
        guard qualityRange.lowerBound >= 0, qualityRange.upperBound <= 100 else {
            throw ImageError(.invalidParameter, "qualities run from 0 to 100, not \(qualityRange)")
        }
        let validTarget = switch target {
        case .ssim(let score): (0...1).contains(score)
        case .dssim(let score, let allowed): (0...1).contains(score) && (0...1).contains(allowed)
        case .bytes(let limit): limit > 0
        }
        guard validTarget else {
            throw ImageError(.invalidParameter, "an SSIM target is 0 to 1 and a byte target positive, not \(target)")
        }
        // The first frame, with the image's profile and metadata, which the encoder writes as it would unsearched.
        var frame = image
        frame.frames = [image.frames[0]]
        var encodeCount = 0
        var encoded: [Int: Data] = [:]
        var similarity: [Int: Double] = [:]
        func data(_ quality: Int) throws -> Data {
            if let known = encoded[quality] { return known }
            var settings = options
            settings.quality = Double(quality) / 100
            let data = try encode(frame, as: format, options: settings)
            encodeCount += 1
            encoded[quality] = data
            return data
        }
        func ssim(_ quality: Int) throws -> Double {
            if let known = similarity[quality] { return known }
            // The samples as stored: an image kept in its own profile is compared in it, not converted.
            let decoded = try decode(try data(quality), options: DecodeOptions(firstFrameOnly: true,
                                                                               colorHandling: .original)).pixels
            let score = try StructuralSimilarity.index(frame.pixels, decoded)
            similarity[quality] = score
            return score
        }
        func result(_ quality: Int) throws -> QualitySearchResult {
            QualitySearchResult(data: try data(quality), quality: Double(quality) / 100, ssim: try ssim(quality),
                                encodeCount: encodeCount)
        }
        // The qualities that meet a similarity target are the upper part of the range, those that meet a byte
        // budget the lower part; the bisection keeps `low` failing-or-unknown and `high` meeting, or the other
        // way round.
        var low = qualityRange.lowerBound, high = qualityRange.upperBound
        switch target {
        case .ssim(let score):
            guard try ssim(high) >= score else { return try result(high) }
            while low < high {
                let middle = (low + high) / 2
                if try ssim(middle) >= score { high = middle } else { low = middle + 1 }
            }
            return try result(high)
        case .dssim(let score, let allowed):
            // Bisection on "DSSIM at most the target", stopping at the first quality within the allowed error.
            var meeting: Int?
            while low <= high {
                let middle = (low + high) / 2
                let dssim = EncodeTarget.dssim(ofSSIM: try ssim(middle))
                if abs(dssim - score) <= allowed { return try result(middle) }
                if dssim <= score {
                    meeting = middle
                    high = middle - 1
                } else {
                    low = middle + 1
                }
            }
            return try result(meeting ?? qualityRange.upperBound)
        case .bytes(let limit):
            guard try data(low).count <= limit else { return try result(low) }
            while low < high {
                let middle = (low + high + 1) / 2
                if try data(middle).count <= limit { low = middle } else { high = middle - 1 }
            }
            return try result(low)
        }
    }
}
