import WebImageCore

extension InfoOptions {
    /// What reading an `/info` URL's options depends on besides the URL: the server's info presets and its rules.
    public struct ParsingRules: Sendable {
        /// The info presets `preset:NAME` refers to (imgproxy's `IMGPROXY_INFO_PRESETS`); `default` applies first.
        public var presets: ProxyPresets
        /// URLs name info presets only (imgproxy's `IMGPROXY_INFO_ONLY_PRESETS`).
        public var onlyPresets: Bool
        /// URLs may set `max_src_resolution` and `max_src_file_size`; presets always may.
        public var allowsSecurityOptions: Bool
        /// When not empty, the only info option names (as written) a URL may use (imgproxy's
        /// `IMGPROXY_ALLOWED_INFO_OPTIONS`); presets may use any.
        public var allowedOptions: Set<String>

        /// Rules with `presets`, any option allowed in URLs, security options refused (imgproxy's defaults).
        public init(presets: ProxyPresets = ProxyPresets(), onlyPresets: Bool = false,
                    allowsSecurityOptions: Bool = false, allowedOptions: Set<String> = []) {
            self.presets = presets
            self.onlyPresets = onlyPresets
            self.allowsSecurityOptions = allowsSecurityOptions
            self.allowedOptions = allowedOptions
        }
    }

    /// Reads an `/info` URL's option segments (imgproxy's names and short forms) on top of the `default` info
    /// preset, if there is one.
    /// - Throws: ``ProxyError`` 404 naming the first segment that cannot be read (an unknown option or preset, an
    ///   argument out of range), 403 for a security option the rules do not allow, 422 for an option that needs
    ///   what this server does not have (object detection, classification).
    public init(segments: [String], rules: ParsingRules = ParsingRules()) throws(ProxyError) {
        self.init()
        if rules.presets.definitions["default"] != nil { try applyPresets(["default"], rules: rules, chain: []) }
        for segment in segments {
            if rules.onlyPresets {
                try applyPresets(rules.presets.names(inPresetsOnlySegment: segment), rules: rules, chain: [])
            } else {
                try apply(segment, rules: rules, chain: nil)
            }
        }
    }

    /// One segment into the options; `chain` is the presets being expanded (`nil` for a URL's own segment).
    mutating func apply(_ segment: String, rules: ParsingRules, chain: [String]?) throws(ProxyError) {
        let arguments = OptionArguments(segment)
        if chain == nil, !rules.allowedOptions.isEmpty, !rules.allowedOptions.contains(arguments.name) {
            throw .invalidURL("info option \"\(arguments.name.prefix(40))\" is not allowed here")
        }
        if try applyDescription(arguments) { return }
        switch arguments.name {
        case "preset", "pr":
            try applyPresets(arguments.all, rules: rules, chain: chain ?? [])
        case "page", "pg":
            try arguments.allow(at: 1)
            page = try arguments.required(arguments.integer(0, in: 0...Int(Int32.max)))
        case "cachebuster", "cb":
            try arguments.allow(at: 1)
            cacheBuster = arguments.text(0) ?? ""
        case "expires", "exp":
            expires = try arguments.expiry()
        case "max_src_resolution", "msr", "max_src_file_size", "msfs":
            guard chain != nil || rules.allowsSecurityOptions else {
                throw .forbidden("security options are not allowed in URLs here: \(arguments.name)")
            }
            try limits.apply(arguments)
        case "hashsum", "hs":
            try arguments.allow(at: 2)
            let type = try arguments.required(arguments.text(0))
            if type == "none" { expectedHashSum = nil; return }
            guard let sum = HashSum(rawValue: type) else {
                throw .invalidURL("hashsum: \"\(type.prefix(20))\" is not none, md5, sha1, sha256 or sha512")
            }
            expectedHashSum = (sum, try arguments.required(arguments.text(1)).lowercased())
        case "video_meta", "vm", "video_thumbnail_second", "vts", "video_thumbnail_keyframes", "vtk",
             "bypass_cache", "bc", "cache_tags", "ct", "objects_position", "obj_pos", "op":
            // Video, cache-control and object options: read and ignored, as imgproxy ignores a video option for
            // an image source (this server has no video sources, and its cache is always consulted).
            break
        case "detect_objects", "do", "classify", "cl":
            let asked = arguments.name.hasPrefix("c") ? (try arguments.integer(0, in: 0...1_000) ?? 0) > 0
                                                      : arguments.bool(0) == true
            guard !asked else {
                throw ProxyError(status: 422, "\(arguments.name): this server has no object detection model")
            }
        default:
            throw .invalidURL("unknown info option \"\(arguments.name.prefix(40))\"")
        }
    }

    /// The options that say what to describe.
    private mutating func applyDescription(_ arguments: OptionArguments) throws(ProxyError) -> Bool {
        switch arguments.name {
        case "size", "s": size = try Self.flag(arguments)
        case "format", "f": format = try Self.flag(arguments)
        case "dimensions", "d": dimensions = try Self.flag(arguments)
        case "exif":
            try arguments.allow(at: 2)
            exif = arguments.bool(0) ?? false
            exifCanonicalNames = arguments.bool(1) ?? false
        case "iptc": iptc = try Self.flag(arguments)
        case "xmp": xmp = try Self.flag(arguments)
        case "colorspace", "cs": colorspace = try Self.flag(arguments)
        case "bands", "b": bands = try Self.flag(arguments)
        case "sample_format", "sf": sampleFormat = try Self.flag(arguments)
        case "pages_number", "pn": pagesNumber = try Self.flag(arguments)
        case "alpha", "a":
            try arguments.allow(at: 2)
            alpha = arguments.bool(0) ?? false
            checksTransparency = arguments.bool(1) ?? false
        case "crop", "c":
            try arguments.allow(at: 5)
            let width = try arguments.cropSide(0) ?? 0, height = try arguments.cropSide(1) ?? 0
            crop = width > 0 && height > 0
                ? ProcessingOptions.Crop(width: width, height: height,
                                         gravity: arguments.has(2) ? try arguments.gravity(from: 2) : nil)
                : nil
        case "palette", "p":
            try arguments.allow(at: 1)
            let colors = try arguments.required(arguments.integer(0, in: 0...256))
            guard colors != 1 else { throw .invalidURL("palette takes 0 or 2 to 256 colours, not 1") }
            paletteColors = colors
        case "average", "avg":
            try arguments.allow(at: 2)
            average = arguments.bool(0) ?? false
            averageIgnoresTransparent = arguments.bool(1) ?? true
        case "dominant_colors", "dc":
            try arguments.allow(at: 2)
            dominantColors = arguments.bool(0) ?? false
            dominantColorsBuildMissing = arguments.bool(1) ?? false
        case "blurhash", "bh":
            try arguments.allow(at: 2)
            let x = try arguments.integer(0, in: 0...BlurHashLimits.maximumComponents) ?? 0
            let y = try arguments.integer(1, in: 0...BlurHashLimits.maximumComponents) ?? 0
            blurHash = x > 0 && y > 0 ? (x, y) : nil
        case "thumb_hash", "th": thumbHash = try Self.flag(arguments)
        case "perceptual_hash", "phash", "ph": perceptualHash = try Self.flag(arguments)
        case "calc_hashsums", "chs":
            var sums: [HashSum] = []
            for name in arguments.all {
                guard let sum = HashSum(rawValue: name) else {
                    throw .invalidURL("calc_hashsums: \"\(name.prefix(20))\" is not md5, sha1, sha256 or sha512")
                }
                if !sums.contains(sum) { sums.append(sum) }
            }
            hashSums = sums
        default:
            return false
        }
        return true
    }

    /// A one-argument switch: `1`, `t` or `true` is on, anything else off.
    private static func flag(_ arguments: OptionArguments) throws(ProxyError) -> Bool {
        try arguments.allow(at: 1)
        return arguments.bool(0) ?? false
    }
}
