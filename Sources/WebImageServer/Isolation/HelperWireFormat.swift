import Foundation
import WebImage

/// The bytes a decode helper and its parent exchange over the helper's stdin and stdout.
///
/// Every message is a header (a little-endian `UInt32` length, then that many bytes of fields) followed by raw
/// payloads whose sizes the header declares: the encoded source for a request, each frame's RGBA pixels for an
/// answer (RGBA16 for a frame kept deep). The payloads are read straight into their final buffers, so pixels
/// cross the pipe with no extra copy.
enum HelperWireFormat {
    /// What the parent asks for.
    enum Request {
        case decode(DecodeOptions)
        case properties
        /// The source's properties, then a second request about the same source, which it does not send again:
        /// ``decode(_:)`` with no source bytes (decode it with the options the parent planned from the
        /// properties) or ``abandon`` (the plan refused it).
        case plan
        /// The end of a ``plan`` exchange without a decode.
        case abandon
    }

    /// What the helper answers, before the pixel payloads.
    enum Answer {
        /// An image follows: one RGBA payload per frame, of the sizes listed.
        case image(ImageHeader)
        case properties(ImageProperties)
        case failure(ImageError.Code, String)
    }

    /// An ``Image`` without its pixels.
    struct ImageHeader {
        var frameSizes: [PixelSize]
        var durations: [Double]
        /// Per frame, the significant bits of its deep bitmap, whose RGBA16 samples are then its payload instead
        /// of RGBA8 (the 8-bit pixels are rounded from them on arrival); 0 for an 8-bit frame.
        var deepBits: [Int]
        var loopCount: Int
        var format: ImageFormat
        var scale: Double
        var orientation: Orientation
        var flags: Image.Flags
        var colorProfile: ColorProfile?
        var metadata: ImageMetadata?

        init(of image: Image) {
            frameSizes = image.frames.map(\.pixels.size)
            durations = image.frames.map(\.duration)
            deepBits = image.frames.map { $0.deepPixels?.significantBits ?? 0 }
            loopCount = image.loopCount
            format = image.format
            scale = image.scale
            orientation = image.orientation
            flags = image.flags
            colorProfile = image.colorProfile
            metadata = image.metadata
        }

        init(frameSizes: [PixelSize], durations: [Double], deepBits: [Int], loopCount: Int, format: ImageFormat,
             scale: Double, orientation: Orientation, flags: Image.Flags, colorProfile: ColorProfile?,
             metadata: ImageMetadata?) {
            self.frameSizes = frameSizes
            self.durations = durations
            self.deepBits = deepBits
            self.loopCount = loopCount
            self.format = format
            self.scale = scale
            self.orientation = orientation
            self.flags = flags
            self.colorProfile = colorProfile
            self.metadata = metadata
        }
    }

    /// The most a header may declare: above any real one (a header carries at most one ICC profile, itself at
    /// most ``ColorProfile/maximumICCSize``, and three metadata blocks of at most
    /// ``ImageMetadata/maximumBlockSize``), low enough that a confused peer cannot make the other side allocate
    /// gigabytes for it.
    static let maximumHeaderBytes = ColorProfile.maximumICCSize + 3 * ImageMetadata.maximumBlockSize + (1 << 20)

    static func encode(_ request: Request, sourceByteCount: Int) -> Data {
        var writer = FieldWriter()
        switch request {
        case .decode(let options):
            writer.byte(1)
            writer.optionalSize(options.thumbnailPixelSize)
            writer.bool(options.preserveAspectRatio)
            writer.optionalInt(options.scaleDownLimitBytes)
            writer.bool(options.firstFrameOnly)
            writer.optionalInt(options.frameIndex)
            writer.bool(options.applyOrientation)
            writer.optionalDouble(options.scaleFactor)
            writer.optionalString(options.fileNameHint)
            writer.int(options.limits.maxPixels)
            writer.int(options.limits.maxFrames)
            writer.int(options.limits.maxTotalPixels)
            writer.byte(colorHandlingCode(options.colorHandling))
            writer.bool(options.readsMetadata)
            writer.bool(options.prefersEmbeddedThumbnail)
            writer.bool(options.keepsHighBitDepth)
        case .properties:
            writer.byte(2)
        case .plan:
            writer.byte(3)
        case .abandon:
            writer.byte(4)
        }
        writer.int(sourceByteCount)
        return writer.framed
    }

    static func decodeRequest(_ header: Data) throws -> (Request, sourceByteCount: Int) {
        var reader = FieldReader(header)
        let request: Request
        switch try reader.byte() {
        case 1:
            var options = DecodeOptions()
            options.thumbnailPixelSize = try reader.optionalSize()
            options.preserveAspectRatio = try reader.bool()
            options.scaleDownLimitBytes = try reader.optionalInt()
            options.firstFrameOnly = try reader.bool()
            options.frameIndex = try reader.optionalInt()
            options.applyOrientation = try reader.bool()
            options.scaleFactor = try reader.optionalDouble()
            options.fileNameHint = try reader.optionalString()
            options.limits = DecodeLimits(maxPixels: try reader.int(), maxFrames: try reader.int(),
                                          maxTotalPixels: try reader.int())
            options.colorHandling = try colorHandling(code: reader.byte())
            options.readsMetadata = try reader.bool()
            options.prefersEmbeddedThumbnail = try reader.bool()
            options.keepsHighBitDepth = try reader.bool()
            request = .decode(options)
        case 2:
            request = .properties
        case 3:
            request = .plan
        case 4:
            request = .abandon
        case let kind:
            throw HelperProtocolError("unknown request kind \(kind)")
        }
        return (request, try reader.int())
    }

    static func encode(_ answer: Answer) -> Data {
        var writer = FieldWriter()
        switch answer {
        case .image(let header):
            writer.byte(1)
            writer.int(header.frameSizes.count)
            for index in header.frameSizes.indices {
                writer.size(header.frameSizes[index])
                writer.double(header.durations[index])
                writer.int(header.deepBits[index])
            }
            writer.int(header.loopCount)
            writer.string(header.format.rawValue)
            writer.double(header.scale)
            writer.int(header.orientation.rawValue)
            writer.byte(header.flags.rawValue)
            writer.optionalProfile(header.colorProfile)
            writer.optionalMetadata(header.metadata)
        case .properties(let properties):
            writer.byte(2)
            writer.string(properties.format.rawValue)
            writer.size(properties.size)
            writer.int(properties.frameCount)
            writer.int(properties.loopCount)
            writer.bool(properties.hasAlpha)
            writer.int(properties.orientation.rawValue)
            writer.int(properties.frameDurations.count)
            properties.frameDurations.forEach { writer.double($0) }
            writer.string(properties.colorSpace.rawValue)
            writer.optionalProfile(properties.colorProfile)
        case .failure(let code, let message):
            writer.byte(3)
            writer.string(code.rawValue)
            writer.string(message)
        }
        return writer.framed
    }

    static func decodeAnswer(_ header: Data) throws -> Answer {
        var reader = FieldReader(header)
        switch try reader.byte() {
        case 1:
            let count = try reader.int()
            guard count > 0, count <= header.count else { throw HelperProtocolError("\(count) frames") }
            var sizes: [PixelSize] = [], durations: [Double] = [], deepBits: [Int] = []
            for _ in 0..<count {
                sizes.append(try reader.size())
                durations.append(try reader.double())
                let bits = try reader.int()
                guard bits == 0 || (9...16).contains(bits) else { throw HelperProtocolError("\(bits)-bit samples") }
                deepBits.append(bits)
            }
            return .image(ImageHeader(
                frameSizes: sizes, durations: durations, deepBits: deepBits, loopCount: try reader.int(),
                format: ImageFormat(rawValue: try reader.string()) ?? .unknown, scale: try reader.double(),
                orientation: Orientation(rawValue: try reader.int()) ?? .up,
                flags: Image.Flags(rawValue: try reader.byte()), colorProfile: try reader.optionalProfile(),
                metadata: try reader.optionalMetadata()))
        case 2:
            var properties = ImageProperties(format: ImageFormat(rawValue: try reader.string()) ?? .unknown,
                                             size: try reader.size())
            properties.frameCount = try reader.int()
            properties.loopCount = try reader.int()
            properties.hasAlpha = try reader.bool()
            properties.orientation = Orientation(rawValue: try reader.int()) ?? .up
            let count = try reader.int()
            guard count >= 0, count <= header.count else { throw HelperProtocolError("\(count) durations") }
            properties.frameDurations = try (0..<count).map { _ in try reader.double() }
            properties.colorSpace = ColorSpace(rawValue: try reader.string()) ?? .sRGB
            properties.colorProfile = try reader.optionalProfile()
            return .properties(properties)
        case 3:
            let code = ImageError.Code(rawValue: try reader.string()) ?? .badImageData
            return .failure(code, try reader.string())
        case let kind:
            throw HelperProtocolError("unknown answer kind \(kind)")
        }
    }

    private static func colorHandlingCode(_ handling: DecodeOptions.ColorHandling) -> UInt8 {
        switch handling {
        case .sRGB: 0
        case .displayP3: 1
        case .original: 2
        }
    }

    private static func colorHandling(code: UInt8) throws -> DecodeOptions.ColorHandling {
        switch code {
        case 0: .sRGB
        case 1: .displayP3
        case 2: .original
        default: throw HelperProtocolError("unknown colour handling \(code)")
        }
    }
}

/// A message that does not follow ``HelperWireFormat``: a helper that wrote something else is not trusted again.
struct HelperProtocolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
