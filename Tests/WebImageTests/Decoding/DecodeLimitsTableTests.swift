import Foundation
import Testing
@testable import WebImage

/// Pixel, frame and total-pixel limits for every format, through every way of decoding: one table of bomb
/// fixtures (over the default limits) and of ordinary files with a limit one below what they need, each decoded
/// eagerly, as a thumbnail, incrementally, as a lazy animation and as a preloaded one. Every decode must end in
/// `imageTooLarge` before the large allocation; the same file at the limit must decode.
@Suite("Decode limits, every format and path")
struct DecodeLimitsTableTests {
    enum Kind: String, Sendable {
        case pixels, frames, totalPixels
    }

    /// One file, the limit it breaks and, for ordinary files, the size and frame count that set the boundary.
    struct Case: Sendable, CustomTestStringConvertible {
        let fixture: String
        let kind: Kind
        /// The frame size and count of an ordinary file; `nil` for a bomb, which breaks the default limits.
        let boundary: (width: Int, height: Int, frames: Int)?

        var testDescription: String { "\(fixture) \(kind.rawValue)" + (boundary == nil ? " bomb" : " boundary") }

        /// Limits the file breaks by one pixel or frame (the defaults for a bomb).
        var breakingLimits: DecodeLimits { limits(offBy: -1) }
        /// Limits the file just meets.
        var meetingLimits: DecodeLimits { limits(offBy: 0) }

        private func limits(offBy delta: Int) -> DecodeLimits {
            guard let boundary else { return .default }
            let area = boundary.width * boundary.height
            switch kind {
            case .pixels: return DecodeLimits(maxPixels: area + delta)
            case .frames: return DecodeLimits(maxFrames: boundary.frames + delta)
            case .totalPixels: return DecodeLimits(maxTotalPixels: area * boundary.frames + delta)
            }
        }
    }

    /// The ways to decode. `firstFrameOnly` is expected to refuse only frames that are too large themselves.
    enum Path: String, CaseIterable, Sendable {
        case decode, thumbnail, firstFrameOnly, incremental, lazyAnimation, preloadedAnimation
    }

    static let bombs: [Case] = [
        Case(fixture: "jpeg/bomb-65535.jpg", kind: .pixels, boundary: nil),
        Case(fixture: "png/bomb_100000x100000.png", kind: .pixels, boundary: nil),
        Case(fixture: "apng/bomb-canvas.png", kind: .pixels, boundary: nil),
        Case(fixture: "apng/bomb-frames.png", kind: .frames, boundary: nil),
        Case(fixture: "gif/bomb-canvas-60000.gif", kind: .pixels, boundary: nil),
        Case(fixture: "webp/bomb_16384x16384.webp", kind: .pixels, boundary: nil),
        Case(fixture: "webp/bomb_canvas60000.webp", kind: .pixels, boundary: nil),
        Case(fixture: "bombs/gif-total-pixels.gif", kind: .totalPixels, boundary: nil),
        Case(fixture: "bombs/apng-total-pixels.png", kind: .totalPixels, boundary: nil),
        Case(fixture: "bombs/webp-total-pixels.webp", kind: .totalPixels, boundary: nil),
    ]

    /// Sizes and frame counts as the fixture scripts made them (and Pillow reads them).
    static let boundaries: [Case] = [
        Case(fixture: "jpeg/baseline.jpg", kind: .pixels, boundary: (96, 64, 1)),
        Case(fixture: "png/rgba8.png", kind: .pixels, boundary: (16, 4, 1)),
        Case(fixture: "webp/lossy.webp", kind: .pixels, boundary: (64, 48, 1)),
    ] + [("apng/dispose-none.png", 8, 8, 3), ("gif/anim-pillow-40.gif", 48, 36, 40),
         ("webp/anim-lossless-40.webp", 48, 36, 40)].flatMap { file in
        [Kind.pixels, .frames, .totalPixels].map {
            Case(fixture: file.0, kind: $0, boundary: (file.1, file.2, file.3))
        }
    }

    static func decode(_ data: Data, limits: DecodeLimits, path: Path) throws {
        var options = DecodeOptions(limits: limits)
        switch path {
        case .decode:
            _ = try ImageCoders.shared.decode(data, options: options)
        case .thumbnail:
            options.thumbnailPixelSize = PixelSize(width: 16, height: 16)
            _ = try ImageCoders.shared.decode(data, options: options)
        case .firstFrameOnly:
            options.firstFrameOnly = true
            _ = try ImageCoders.shared.decode(data, options: options)
        case .incremental:
            let decoder = IncrementalDecoder(options: options)
            try decoder.append(data)
            _ = try decoder.finish()
        case .lazyAnimation:
            _ = try AnimatedImage(data: data, options: .init(decodeOptions: options)).makeImage()
        case .preloadedAnimation:
            _ = try AnimatedImage(data: data, options: .init(preloadAllFrames: true, decodeOptions: options))
        }
    }

    static func errorCode(_ body: () throws -> Void) -> ImageError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? ImageError)?.code ?? .io
        }
    }

    /// Whether `path` must refuse a file that breaks `kind`: a first-frame decode keeps one frame, so only a frame
    /// that is too large itself stops it.
    static func mustRefuse(_ kind: Kind, on path: Path) -> Bool {
        path != .firstFrameOnly || kind == .pixels
    }

    @Test("bombs over the default limits are refused on every path", arguments: bombs, Path.allCases)
    func bombsAreRefused(bomb: Case, path: Path) throws {
        let data = try Fixtures.data(bomb.fixture)
        // The first frame of a total-pixel bomb is a legitimate 8192² decode (256 MB): not worth doing here.
        guard Self.mustRefuse(bomb.kind, on: path) else { return }
        #expect(Self.errorCode { try Self.decode(data, limits: .default, path: path) } == .imageTooLarge)
    }

    @Test("a limit one below what a file needs refuses it; at the limit it decodes", arguments: boundaries, Path.allCases)
    func limitsHoldAtTheBoundary(file: Case, path: Path) throws {
        let data = try Fixtures.data(file.fixture)
        let over = Self.errorCode { try Self.decode(data, limits: file.breakingLimits, path: path) }
        if Self.mustRefuse(file.kind, on: path) {
            #expect(over == .imageTooLarge)
        } else {
            #expect(over == nil)
        }
        #expect(Self.errorCode { try Self.decode(data, limits: file.meetingLimits, path: path) } == nil)
    }
}
