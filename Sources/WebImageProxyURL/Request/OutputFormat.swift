import WebImageCore

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
    /// JPEG XL, when its coder is registered.
    case jxl
    /// BMP.
    case bmp
    /// TIFF: a name URLs may use; it is written only by a server whose coders encode TIFF (the bundled TIFF coder
    /// reads only, so `webimage serve` answers 422).
    case tiff
    /// ICO (a PNG inside), at most 256 pixels a side.
    case ico
    /// HEIC: a name URLs may use, but no coder writes it here, so it is refused as imgproxy refuses a format it
    /// cannot save (422).
    case heic
    /// SVG: only an SVG source is answered as SVG (sanitised, never drawn); any other source asking for it is
    /// refused as a format this server cannot write (422).
    case svg

    /// The format for a URL's name (imgproxy's names: `jpg`/`jpeg`, `png`, `webp`, `avif`, `gif`, `jxl`, `bmp`,
    /// `tiff`/`tif`, `ico`, `heic`, `svg`); `nil` for any other.
    public init?(name: String) {
        switch name {
        case "jpeg": self = .jpeg
        case "tif": self = .tiff
        default: self.init(rawValue: name)
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
        case .jxl: .jxl
        case .bmp: .bmp
        case .tiff: .tiff
        case .ico: .ico
        case .heic: .heic
        case .svg: .svg
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
        case .jxl: "image/jxl"
        case .bmp: "image/bmp"
        case .tiff: "image/tiff"
        case .ico: "image/x-icon"
        case .heic: "image/heif"  // imgproxy's type for every HEIF answer
        case .svg: "image/svg+xml"
        }
    }

    /// Whether the format holds more than one frame with timing (so an animation can stay animated).
    public var holdsAnimation: Bool { self == .gif || self == .webp || self == .png || self == .avif }

    /// The output for a source in `format` when the URL names none and `Accept` picks none, by imgproxy's
    /// preferred-formats rule: the source's format when it is one of `preferred` (imgproxy's default list: JPEG,
    /// PNG, GIF), else the first preferred format that holds what the answer needs: transparency when
    /// `hasAlpha` (the caller says whether the answer can have any), animation when `isAnimated`; else the first.
    public static func matchingSource(_ format: ImageFormat, hasAlpha: Bool, isAnimated: Bool = false,
                                      preferred: [OutputFormat] = [.jpeg, .png, .gif]) -> OutputFormat {
        if let same = preferred.first(where: { $0.imageFormat == format }) { return same }
        let fitting = preferred.first { (!isAnimated || $0.holdsAnimation) && (!hasAlpha || $0.holdsTransparency) }
        return fitting ?? preferred.first ?? (hasAlpha ? .png : .jpeg)
    }

    /// Whether the format keeps an alpha channel.
    public var holdsTransparency: Bool { self != .jpeg && self != .bmp }
}
