/// A decoded image: one frame, or several for an animation, plus what is known about where it came from.
///
/// Values are cheap to copy (pixel memory is shared and immutable) and safe to send between tasks.
public struct Image: Sendable {
    /// What an image is, beyond its pixels.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Some pixel may be less than fully opaque.
        public static let hasAlpha = Flags(rawValue: 1 << 0)
        /// A partial image from progressive loading; more data will follow.
        public static let incremental = Flags(rawValue: 1 << 1)
        /// The pixels went through an ``ImageTransformer``.
        public static let transformed = Flags(rawValue: 1 << 2)
        /// Decoded smaller than the source on purpose (thumbnail or scale-down limit).
        public static let thumbnail = Flags(rawValue: 1 << 3)
    }

    /// The frames in display order; never empty.
    public var frames: [ImageFrame]
    /// How many times an animation plays; 0 means forever. 1 for still images.
    public var loopCount: Int
    /// The encoded format the image was decoded from (`ImageFormat.unknown` when made in memory).
    public var format: ImageFormat
    /// Points per pixel divisor: 2 for `@2x` sources, 3 for `@3x`, otherwise 1.
    public var scale: Double
    /// The EXIF orientation the source declared. The pixels are already turned upright unless
    /// ``DecodeOptions/applyOrientation`` was off.
    public var orientation: Orientation
    /// See ``Flags``.
    public var flags: Flags
    /// The colour space of the samples when it is not sRGB: the file's profile after a decode with
    /// ``DecodeOptions/ColorHandling/original``, ``ColorProfile/displayP3`` after one to Display P3. `nil` means
    /// sRGB. Encoders write it into the files they make.
    public var colorProfile: ColorProfile?
    /// The file's EXIF, XMP and IPTC blocks, after a decode with ``DecodeOptions/readsMetadata``; encoders write
    /// them into the files they make. `nil` when none was read.
    public var metadata: ImageMetadata?

    /// Creates an image from frames. `frames` must not be empty.
    public init(
        frames: [ImageFrame], loopCount: Int = 1, format: ImageFormat = .unknown, scale: Double = 1,
        orientation: Orientation = .up, flags: Flags = []
    ) {
        precondition(!frames.isEmpty, "an Image needs at least one frame")
        self.frames = frames
        self.loopCount = loopCount
        self.format = format
        self.scale = scale
        self.orientation = orientation
        self.flags = flags
        self.colorProfile = nil
        self.metadata = nil
    }

    /// A still image of one bitmap; `hasAlpha` is measured from the pixels when not given.
    public init(
        pixels: PixelBuffer, format: ImageFormat = .unknown, scale: Double = 1,
        orientation: Orientation = .up, hasAlpha: Bool? = nil
    ) {
        let alpha = hasAlpha ?? pixels.containsTransparency
        self.init(frames: [ImageFrame(pixels: pixels)], format: format, scale: scale,
                  orientation: orientation, flags: alpha ? .hasAlpha : [])
    }

    /// The first frame's pixels: the whole image for still images, the poster frame for animations.
    public var pixels: PixelBuffer { frames[0].pixels }
    /// Size in pixels, after orientation was applied.
    public var size: PixelSize { pixels.size }
    /// Size in points: ``size`` divided by ``scale``.
    public var pointSize: (width: Double, height: Double) {
        (Double(size.width) / scale, Double(size.height) / scale)
    }
    /// More than one frame.
    public var isAnimated: Bool { frames.count > 1 }
    /// Shorthand for `flags.contains(.hasAlpha)`.
    public var hasAlpha: Bool { flags.contains(.hasAlpha) }
    /// Total duration of one loop, in seconds.
    public var duration: Double { frames.reduce(0) { $0 + $1.duration } }

    /// Bytes of decoded pixels held by this image, counting a bitmap shared by several frames once.
    /// This is the cost memory caches charge.
    public var memoryCost: Int {
        var seen = Set<ObjectIdentifier>()
        var total = 0
        for frame in frames where seen.insert(ObjectIdentifier(frame.pixels.storage)).inserted {
            total += frame.pixels.byteCount + (frame.deepPixels?.byteCount ?? 0)
        }
        return total
    }
}

/// One frame of an image: its pixels and how long it is shown.
public struct ImageFrame: Sendable {
    /// The fully composited pixels of the frame (same size for every frame of an image). Setting new pixels
    /// drops ``deepPixels``, which would no longer be the same image.
    public var pixels: PixelBuffer {
        didSet { deepPixels = nil }
    }
    /// How long the frame is shown, in seconds; 0 for still images.
    public var duration: Double
    /// The same pixels with 16 bits a sample, for a source of more than 8 (decoded with
    /// ``DecodeOptions/keepsHighBitDepth``); ``pixels`` then holds them rounded to 8 bits. Transformers that work
    /// in 16 bits keep it; the others make 8-bit frames. Encoders of formats with deeper samples (PNG, AVIF, JPEG
    /// XL) write it.
    public var deepPixels: DeepPixelBuffer?

    /// Creates a frame shown for `duration` seconds.
    public init(pixels: PixelBuffer, duration: Double = 0) {
        self.pixels = pixels
        self.duration = duration
        self.deepPixels = nil
    }
}
