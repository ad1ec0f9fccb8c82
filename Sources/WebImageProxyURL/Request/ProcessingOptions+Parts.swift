import WebImageCore

extension ProcessingOptions {
    /// Space added on each side of the result, in CSS pixels (imgproxy's `padding`, CSS order).
    public struct Padding: Sendable, Hashable {
        /// Above the image.
        public var top = 0
        /// Right of the image.
        public var right = 0
        /// Below the image.
        public var bottom = 0
        /// Left of the image.
        public var left = 0

        /// No padding.
        public init() {}

        /// Padding of `top`, `right`, `bottom` and `left` pixels.
        public init(top: Int, right: Int, bottom: Int, left: Int) {
            (self.top, self.right, self.bottom, self.left) = (top, right, bottom, left)
        }

        /// Whether any side has padding.
        public var isEmpty: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
    }

    /// Borders to cut away (imgproxy's `trim`): rows and columns at the edges whose pixels all lie within
    /// ``threshold`` of the border colour.
    public struct Trim: Sendable, Hashable {
        /// How far (0–255 per channel) a pixel may be from the colour and still count as border.
        public var threshold: Double
        /// The border colour; `nil` takes the top-left pixel's.
        public var color: RGBA?
        /// Cut the same amount from the left and the right (the smaller of the two).
        public var equalHorizontal = false
        /// Cut the same amount from the top and the bottom (the smaller of the two).
        public var equalVertical = false
    }

    /// Where the server's watermark image is drawn (imgproxy's `watermark`).
    public struct Watermark: Sendable, Hashable {
        /// Opacity 0–1 (0 draws nothing).
        public var opacity: Double
        /// The anchor; `nil` repeats the watermark over the whole result (`re`).
        public var position: Gravity.Anchor? = .center
        /// Offset from the anchor along x, in pixels (for the repeated watermark, the gap between copies).
        public var x = 0.0
        /// Offset from the anchor along y, in pixels (for the repeated watermark, the gap between copies).
        public var y = 0.0
        /// The watermark's width as a fraction of the result's; 0 keeps its own size.
        public var scale = 0.0
    }

    /// `autoquality:METHOD:TARGET:MIN:MAX:ALLOWED_ERROR` (imgproxy Pro's autoquality): each part the URL gives
    /// replaces the server's setting; `nil` parts keep it.
    public struct Autoquality: Sendable, Hashable {
        /// How the quality is chosen.
        public enum Method: String, Sendable, Hashable {
            /// The fixed quality (`q`, `fq`, the server's).
            case none
            /// The highest quality whose output fits in `target` bytes.
            case size
            /// The quality whose output's DSSIM against the result is nearest `target`.
            case dssim
            /// imgproxy's neural-network prediction: without models here, ``dssim``.
            case ml
        }

        /// The method.
        public var method: Method?
        /// Bytes for ``Method/size``, a DSSIM for ``Method/dssim``.
        public var target: Double?
        /// The lowest quality the search may choose (1–100).
        public var minimum: Int?
        /// The highest quality the search may choose (1–100).
        public var maximum: Int?
        /// How far from a DSSIM target a quality may be and end the search.
        public var allowedError: Double?

        /// Nothing replaced.
        public init() {}

        var cacheKey: String {
            [method?.rawValue, target.map { "\($0)" }, minimum.map(String.init), maximum.map(String.init),
             allowedError.map { "\($0)" }].map { $0 ?? "-" }.joined(separator: ":")
        }
    }

    /// Limits a URL may set over the server's own (imgproxy's security options), each `nil` when not set.
    public struct SecurityLimits: Sendable, Hashable {
        /// Most pixels a source may have.
        public var maximumSourcePixels: Int?
        /// Most bytes a source may have.
        public var maximumSourceBytes: Int?
        /// Most frames an animated source may have.
        public var maximumAnimationFrames: Int?
        /// Most pixels one frame of an animated source may have.
        public var maximumAnimationFramePixels: Int?
        /// Most pixels either side of the result may have.
        public var maximumResultDimension: Int?

        /// No limits of the URL's own.
        public init() {}

        /// One security option's segment (`max_src_resolution`, `max_src_file_size`, `max_animation_frames`,
        /// `max_animation_frame_resolution`, `max_result_dimension` or a short name), already known to be allowed.
        mutating func apply(_ arguments: OptionArguments) throws(ProxyError) {
            try arguments.allow(at: 1)
            func megapixels() throws(ProxyError) -> Int {
                Int(try arguments.required(arguments.number(0, in: 0...1_000_000)) * 1_000_000)
            }
            switch arguments.name {
            case "max_src_resolution", "msr": maximumSourcePixels = try megapixels()
            case "max_src_file_size", "msfs":
                maximumSourceBytes = try arguments.required(arguments.integer(0, in: 0...Int(Int64.max)))
            case "max_animation_frames", "maf":
                maximumAnimationFrames = try arguments.required(arguments.integer(0, in: 1...Int(Int32.max)))
            case "max_animation_frame_resolution", "mafr": maximumAnimationFramePixels = try megapixels()
            default:
                maximumResultDimension = try arguments.required(arguments.integer(0, in: 0...Int(Int32.max)))
            }
        }

        var cacheKey: String {
            [maximumSourcePixels, maximumSourceBytes, maximumAnimationFrames, maximumAnimationFramePixels,
             maximumResultDimension].map { $0.map(String.init) ?? "-" }.joined(separator: ":")
        }
    }
}
