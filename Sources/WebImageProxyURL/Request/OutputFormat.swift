import WebImage

/// The formats the proxy writes, by the names URLs use for them.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// JPEG, named `jpg` (or `jpeg`) in URLs.
    case jpeg = "jpg"
    /// PNG; animated (APNG) when the result has frames.
    case png
    /// WebP; animated when the result has frames.
    case webp
    /// AVIF, when the AVIF coder is registered (`webimage serve` registers it).
    case avif
    /// GIF; animated when the result has frames.
    case gif

    /// The format for a URL's name: `jpg` or `jpeg`, `png`, `webp`, `avif`, `gif`; `nil` for any other.
    public init?(name: String) {
        if name == "jpeg" {
            self = .jpeg
        } else {
            self.init(rawValue: name)
        }
    }

    /// The pipeline's format.
    public var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        case .gif: .gif
        }
    }

    /// The `Content-Type` of a response in this format.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .gif: "image/gif"
        }
    }

    /// Whether the format holds more than one frame with timing (so an animation can stay animated).
    public var holdsAnimation: Bool { self == .gif || self == .webp || self == .png || self == .avif }

    /// The output for a source in `format` when the URL names none and `Accept` picks none: the same format when
    /// the proxy writes it, else JPEG (imgproxy's rule) — or PNG when the source has transparency.
    public static func matchingSource(_ format: ImageFormat, hasAlpha: Bool) -> OutputFormat {
        switch format {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        case .gif: .gif
        default: hasAlpha ? .png : .jpeg
        }
    }
}
