import Foundation

/// What a quality search aims for.
public enum EncodeTarget: Sendable, Hashable {
    /// The smallest output whose SSIM against the image (``StructuralSimilarity``) is at least this (0 to 1).
    case ssim(Double)
    /// The best output of at most this many bytes.
    case bytes(Int)
}

/// The output a quality search chose, the quality it was encoded at, and how alike it measured.
public struct QualitySearchResult: Sendable {
    /// The encoded bytes.
    public let data: Data
    /// The quality they were encoded at, as ``EncodeOptions/quality`` takes it (0 to 1, in steps of 0.01).
    public let quality: Double
    /// The SSIM of the output, decoded, against the image.
    public let ssim: Double
    /// How many times the image was encoded to find it.
    public let encodeCount: Int
}

extension ImageCoders {
    /// Encodes the first frame of `image` at the quality, among the whole percentages in `qualityRange`, that
    /// meets `target`: the lowest quality whose output is at least `.ssim(x)` alike, or the highest whose output
    /// fits in `.bytes(n)`. Assumes size and similarity grow with quality (true of the lossy encoders up to
    /// their rounding), which lets a bisection find it in about log2 of the range's width encodes, each decoded
    /// again to be measured. When no quality in the range meets the target, the nearest end is returned (the
    /// highest quality for an unreachable SSIM, the lowest for a byte budget too small), so check the result.
    ///
    /// For lossy formats (JPEG, WebP, AVIF, JPEG XL, HEIC); a format that ignores quality gives the same output at
    /// every step. Throws what encoding and decoding throw, and ``ImageError/Code/invalidParameter`` for a range
    /// outside 0...100 or a target out of its range, or an image under SSIM's 11 × 11 window.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions = EncodeOptions(),
                       target: EncodeTarget, qualityRange: ClosedRange<Int> = 10...95) throws -> QualitySearchResult {
        guard qualityRange.lowerBound >= 0, qualityRange.upperBound <= 100 else {
            throw ImageError(.invalidParameter, "qualities run from 0 to 100, not \(qualityRange)")
        }
        let validTarget = switch target {
        case .ssim(let score): (0...1).contains(score)
        case .bytes(let limit): limit > 0
        }
        guard validTarget else {
            throw ImageError(.invalidParameter, "an SSIM target is 0 to 1 and a byte target positive, not \(target)")
        }
        let frame = Image(pixels: image.pixels, hasAlpha: image.hasAlpha)
        var encodeCount = 0
        var measured: [Int: QualitySearchResult] = [:]
        func attempt(_ quality: Int) throws -> QualitySearchResult {
            if let known = measured[quality] { return known }
            var settings = options
            settings.quality = Double(quality) / 100
            let data = try encode(frame, as: format, options: settings)
            encodeCount += 1
            let decoded = try decode(data, options: DecodeOptions(firstFrameOnly: true)).pixels
            let result = QualitySearchResult(data: data, quality: settings.quality,
                                             ssim: try StructuralSimilarity.index(frame.pixels, decoded),
                                             encodeCount: encodeCount)
            measured[quality] = result
            return result
        }
        func meets(_ result: QualitySearchResult) -> Bool {
            switch target {
            case .ssim(let score): result.ssim >= score
            case .bytes(let limit): result.data.count <= limit
            }
        }
        // The qualities that meet an SSIM target are the upper part of the range, those that meet a byte budget
        // the lower part; the bisection keeps `low` failing-or-unknown and `high` meeting, or the other way round.
        var low = qualityRange.lowerBound, high = qualityRange.upperBound
        let chosen: Int
        switch target {
        case .ssim:
            guard try meets(attempt(high)) else { return finish(try attempt(high), encodeCount) }
            while low < high {
                let middle = (low + high) / 2
                if try meets(attempt(middle)) { high = middle } else { low = middle + 1 }
            }
            chosen = high
        case .bytes:
            guard try meets(attempt(low)) else { return finish(try attempt(low), encodeCount) }
            while low < high {
                let middle = (low + high + 1) / 2
                if try meets(attempt(middle)) { low = middle } else { high = middle - 1 }
            }
            chosen = low
        }
        return finish(try attempt(chosen), encodeCount)
    }

    private func finish(_ result: QualitySearchResult, _ encodeCount: Int) -> QualitySearchResult {
        QualitySearchResult(data: result.data, quality: result.quality, ssim: result.ssim, encodeCount: encodeCount)
    }
}
