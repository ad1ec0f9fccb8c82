import WebImageCore

extension ProcessingOptions {
    /// What reading a URL's options depends on besides the URL: the server's presets and its rules.
    public struct ParsingRules: Sendable {
        /// The presets `preset:NAME` refers to; `default` applies to every request first.
        public var presets: ProxyPresets
        /// URLs name presets only (imgproxy's `IMGPROXY_ONLY_PRESETS`): the one option segment is preset names.
        public var onlyPresets: Bool
        /// URLs may set the security options (imgproxy's `IMGPROXY_ALLOW_SECURITY_OPTIONS`); presets always may.
        public var allowsSecurityOptions: Bool
        /// When not empty, the only option names (as written: `w` does not allow `width`) a URL may use; presets
        /// may use any (imgproxy's `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`).
        public var allowedOptions: Set<String>
        /// `strip_metadata` when neither the URL nor a preset sets it (imgproxy's `IMGPROXY_STRIP_METADATA`).
        public var stripsMetadata: Bool
        /// `keep_copyright` when neither the URL nor a preset sets it (imgproxy's `IMGPROXY_KEEP_COPYRIGHT`).
        public var keepsCopyright: Bool
        /// `enforce_thumbnail` when neither the URL nor a preset sets it (imgproxy's `IMGPROXY_ENFORCE_THUMBNAIL`).
        public var enforcesThumbnail: Bool
        /// `preserve_hdr` when neither the URL nor a preset sets it (imgproxy's `IMGPROXY_PRESERVE_HDR`).
        public var preservesHDR: Bool

        /// Rules with `presets`, options allowed in URLs, security options refused, metadata stripped but for
        /// copyright (imgproxy's defaults).
        public init(presets: ProxyPresets = ProxyPresets(), onlyPresets: Bool = false,
                    allowsSecurityOptions: Bool = false, allowedOptions: Set<String> = [],
                    stripsMetadata: Bool = true, keepsCopyright: Bool = true, enforcesThumbnail: Bool = false,
                    preservesHDR: Bool = false) {
            self.presets = presets
            self.onlyPresets = onlyPresets
            self.allowsSecurityOptions = allowsSecurityOptions
            self.allowedOptions = allowedOptions
            self.stripsMetadata = stripsMetadata
            self.keepsCopyright = keepsCopyright
            self.enforcesThumbnail = enforcesThumbnail
            self.preservesHDR = preservesHDR
        }
    }

    /// Reads a URL's option segments (`name:argument:…`, imgproxy's names and short forms) on top of the
    /// `default` preset, if there is one.
    /// - Throws: ``ProxyError`` 404 naming the first segment that cannot be read (an unknown option or preset, an
    ///   argument out of range, too many arguments), 403 for a security option the rules do not allow.
    public init(segments: [String], rules: ParsingRules = ParsingRules()) throws(ProxyError) {
        try self.init(segments: segments, rules: rules, clientHints: ClientHints())
    }

    /// Like ``init(segments:rules:)``, on top of the request's client hints (pass them only when the server reads
    /// them): they come first, so the `default` preset and the URL's own width and `dpr` replace them.
    public init(segments: [String], rules: ParsingRules, clientHints: ClientHints) throws(ProxyError) {
        self.init()
        applyClientHints(clientHints)
        if rules.presets.definitions["default"] != nil {
            try applyPresets(["default"], rules: rules, chain: [])
        }
        if rules.onlyPresets {
            for segment in segments {
                try applyPresets(rules.presets.names(inPresetsOnlySegment: segment), rules: rules, chain: [])
            }
        } else {
            for segment in segments { try apply(segment, rules: rules, chain: nil) }
        }
        // Settled here, so that the result's cache key says what was applied whatever the server's defaults.
        stripMetadata = stripMetadata ?? rules.stripsMetadata
        keepCopyright = keepCopyright ?? rules.keepsCopyright
        // Off is one key however it was asked for (`eth:0`, or nothing).
        enforceThumbnail = (enforceThumbnail ?? rules.enforcesThumbnail) ? true : nil
        preserveHDR = (preserveHDR ?? rules.preservesHDR) ? true : nil
    }

    /// Like ``init(segments:rules:)`` with only presets as rules.
    public init(segments: [String], presets: ProxyPresets = ProxyPresets(), onlyPresets: Bool = false)
        throws(ProxyError)
    {
        try self.init(segments: segments, rules: ParsingRules(presets: presets, onlyPresets: onlyPresets))
    }

    /// One segment into the options; `chain` is the presets being expanded (`nil` for a URL's own segment).
    /// Presets expand in place, so later segments override them.
    mutating func apply(_ segment: String, rules: ParsingRules, chain: [String]?) throws(ProxyError) {
        let arguments = OptionArguments(segment)
        if chain == nil, !rules.allowedOptions.isEmpty, !rules.allowedOptions.contains(arguments.name) {
            throw .invalidURL("option \"\(arguments.name.prefix(40))\" is not allowed here")
        }
        if try applyGeometry(arguments) { return }
        if try applyEffect(arguments) { return }
        if try applyHandling(arguments) { return }
        switch arguments.name {
        case "preset", "pr":
            try applyPresets(arguments.all, rules: rules, chain: chain ?? [])
        case "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
             "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd":
            guard chain != nil || rules.allowsSecurityOptions else {
                throw .forbidden("security options are not allowed in URLs here: \(arguments.name)")
            }
            try limits.apply(arguments)
        default:
            throw .invalidURL("unknown option \"\(arguments.name.prefix(40))\"")
        }
    }

    /// The options that decide the result's size and what part of the source it shows.
    private mutating func applyGeometry(_ arguments: OptionArguments) throws(ProxyError) -> Bool {
        switch arguments.name {
        case "resize", "rs":
            try arguments.allow(at: 8)
            if let type = try arguments.resizingType(0) { resizingType = type }
            try applySize(arguments, from: 1)
        case "size", "s":
            try arguments.allow(at: 7)
            try applySize(arguments, from: 0)
        case "resizing_type", "rt":
            try arguments.allow(at: 1)
            resizingType = try arguments.required(arguments.resizingType(0))
        case "width", "w":
            try arguments.allow(at: 1)
            width = try arguments.required(arguments.dimension(0))
        case "height", "h":
            try arguments.allow(at: 1)
            height = try arguments.required(arguments.dimension(0))
        case "min-width", "mw":
            try arguments.allow(at: 1)
            minWidth = try arguments.required(arguments.dimension(0))
        case "min-height", "mh":
            try arguments.allow(at: 1)
            minHeight = try arguments.required(arguments.dimension(0))
        case "zoom", "z":
            try arguments.allow(at: 2)
            zoomX = try arguments.required(arguments.positiveNumber(0, upTo: 100))
            zoomY = try arguments.positiveNumber(1, upTo: 100) ?? zoomX
        case "dpr":
            try arguments.allow(at: 1)
            dpr = try arguments.required(arguments.positiveNumber(0, upTo: 8))
        case "enlarge", "el":
            try arguments.allow(at: 1)
            enlarge = arguments.bool(0) ?? false
        case "extend", "ex":
            extend = try arguments.extend(from: 0)
        case "extend_aspect_ratio", "extend_ar", "exar":
            extendAspectRatio = try arguments.extend(from: 0)
        case "gravity", "g":
            gravity = try arguments.gravity(from: 0)
        case "crop", "c":
            try arguments.allow(at: 5)
            let width = try arguments.required(arguments.cropSide(0))
            let height = try arguments.cropSide(1) ?? 0
            crop = Crop(width: width, height: height, gravity: arguments.has(2) ? try arguments.gravity(from: 2) : nil)
        case "trim", "t":
            try arguments.allow(at: 4)
            let threshold = try arguments.required(arguments.number(0, in: 0...255))
            trim = Trim(threshold: threshold, color: try arguments.hexColor(1),
                        equalHorizontal: arguments.bool(2) ?? false, equalVertical: arguments.bool(3) ?? false)
        case "padding", "pd":
            try arguments.allow(at: 4)
            let top = try arguments.integer(0, in: 0...16_384) ?? 0
            let right = try arguments.integer(1, in: 0...16_384) ?? top
            let bottom = try arguments.integer(2, in: 0...16_384) ?? top
            let left = try arguments.integer(3, in: 0...16_384) ?? right
            padding = Padding(top: top, right: right, bottom: bottom, left: left)
        case "auto_rotate", "ar":
            try arguments.allow(at: 1)
            autoRotate = arguments.bool(0) ?? false
        case "rotate", "rot":
            try arguments.allow(at: 1)
            let angle = try arguments.required(arguments.integer(0, in: -3600...3600))
            guard angle % 90 == 0 else { throw .invalidURL("rotate takes multiples of 90 degrees, not \(angle)") }
            rotate = (angle % 360 + 360) % 360
        case "flip", "fl":
            try arguments.allow(at: 2)
            if arguments.has(0) { flipHorizontal = arguments.bool(0) ?? false }
            if arguments.has(1) { flipVertical = arguments.bool(1) ?? false }
        case "frame":
            try arguments.allow(at: 1)
            frame = try arguments.required(arguments.integer(0, in: 0...Int(Int32.max)))
        default:
            return false
        }
        return true
    }

    /// `WIDTH:HEIGHT:ENLARGE:EXTEND:GRAVITY…` from argument `index` on (the tail of `size` and `resize`).
    private mutating func applySize(_ arguments: OptionArguments, from index: Int) throws(ProxyError) {
        if let width = try arguments.dimension(index) { self.width = width }
        if let height = try arguments.dimension(index + 1) { self.height = height }
        if arguments.has(index + 2) { enlarge = arguments.bool(index + 2) ?? false }
        if arguments.has(index + 3) { extend = try arguments.extend(from: index + 3) }
    }
}
