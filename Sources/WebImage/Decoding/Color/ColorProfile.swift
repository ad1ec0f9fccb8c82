import Foundation

/// How an image's samples map to colours: the ICC profile its file carries, or one built from its colour code
/// points (AVIF, HEIF, JPEG XL, PNG `cICP`) or its PNG colour chunks (`gAMA`, `cHRM`).
///
/// Decoding converts to sRGB by default and leaves no profile on the image (``DecodeOptions/colorHandling``);
/// with ``DecodeOptions/ColorHandling/original`` the samples are left alone and the image carries its profile,
/// which the encoders write back (PNG `iCCP`, JPEG APP2, WebP `ICCP`, AVIF and JPEG XL colour boxes).
public struct ColorProfile: Sendable, Hashable {
    /// What the profile measures as, by name.
    public let space: ColorSpace
    /// The profile's own description (its `desc` tag), or a name for one built from code points.
    public let name: String?
    /// The ICC profile: the file's own bytes, or one built from its code points or colour chunks. For HDR code
    /// points (PQ, HLG) the profile holds the tone-mapped curve this library shows them with.
    public let iccData: Data
    /// The code points the description came as, when it came as code points.
    public let codePoints: ColorCodePoints?
    /// Whether the samples are already what an sRGB display expects, so converting would change nothing: an
    /// RGB profile that measures as sRGB, or a gray one whose curve is sRGB's.
    public let isSRGB: Bool

    /// Profiles larger than this are ignored (the image decodes as if untagged): the biggest printing
    /// profiles are a few megabytes, and a profile is parsed before any pixel is decoded.
    public static let maximumICCSize = 8 << 20

    /// Reads an ICC profile. `nil` when it is empty, larger than ``maximumICCSize``, or not a profile Little
    /// CMS can read: such a file decodes as if it carried no profile.
    public init?(icc data: Data) {
        guard let profile = LittleCMSProfile(icc: data) else { return nil }
        self.init(profile: profile, iccData: data, codePoints: nil)
    }

    /// A profile for colour code points; `nil` for primaries or transfers this library does not know (the
    /// image is then treated as sRGB, as browsers do).
    public init?(codePoints: ColorCodePoints) {
        guard let built = ColorCodePointProfiles.profile(for: codePoints), let icc = built.profile.serialized()
        else { return nil }
        self.init(space: built.space, name: built.name, iccData: icc, codePoints: codePoints,
                  isSRGB: built.space == .sRGB)
    }

    init(space: ColorSpace, name: String?, iccData: Data, codePoints: ColorCodePoints?, isSRGB: Bool) {
        self.space = space
        self.name = name
        self.iccData = iccData
        self.codePoints = codePoints
        self.isSRGB = isSRGB
    }

    init(profile: LittleCMSProfile, iccData: Data, codePoints: ColorCodePoints?) {
        let space = ColorSpaceRecognizer.space(of: profile)
        self.init(space: space, name: profile.descriptionText, iccData: iccData, codePoints: codePoints,
                  isSRGB: space == .sRGB || space == .gray && ColorSpaceRecognizer.grayIsSRGB(profile))
    }

    /// The profile, or `nil` when it is sRGB: what a header reader reports, since sRGB is what untagged means.
    public var unlessSRGB: ColorProfile? { isSRGB ? nil : self }

    /// Display P3, the target for callers that draw wide colour.
    public static var displayP3: ColorProfile { displayP3Bytes.profile }

    /// The profile untagged samples are read with when they must be converted (to Display P3).
    static var sRGBForConversion: ColorProfile { sRGBBytes.profile }

    // Built once and kept as plain byte arrays: a `Data` kept in a global for the life of the process is reported
    // by LeakSanitizer at exit (its storage reference is stored with tag bits the scanner does not recognise).
    private static let displayP3Bytes = KeptProfile(ColorProfile(codePoints: .displayP3))
    private static let sRGBBytes = KeptProfile(ColorProfile(codePoints: .sRGB))
}

/// A built-in profile kept as its parts, made back into a ``ColorProfile`` on each use (a copy of a few hundred
/// bytes).
private struct KeptProfile: Sendable {
    let space: ColorSpace
    let name: String?
    let bytes: [UInt8]
    let codePoints: ColorCodePoints?
    let isSRGB: Bool

    init(_ profile: ColorProfile?) {
        // Both are built from published constants by Little CMS, which cannot fail to do so.
        guard let profile else { preconditionFailure("Little CMS could not build a built-in profile") }
        space = profile.space
        name = profile.name
        bytes = Array(profile.iccData)
        codePoints = profile.codePoints
        isSRGB = profile.isSRGB
    }

    var profile: ColorProfile {
        ColorProfile(space: space, name: name, iccData: Data(bytes), codePoints: codePoints, isSRGB: isSRGB)
    }
}
