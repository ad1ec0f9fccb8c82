import WebImage

extension ProcessingOptions {
    /// Reads a URL's option segments (`name:argument:…`, imgproxy's names and short forms) on top of the
    /// `default` preset, if `presets` has one.
    /// - Parameter onlyPresets: accept `preset`/`pr` segments only (imgproxy's `IMGPROXY_ONLY_PRESETS`).
    /// - Throws: ``ProxyError`` 400 naming the first segment that cannot be read: an unknown option or preset, an
    ///   argument out of range, too many arguments.
    public init(segments: [String], presets: ProxyPresets = ProxyPresets(), onlyPresets: Bool = false)
        throws(ProxyError)
    {
        self.init()
        if let defaults = presets.definitions["default"] {
            for segment in defaults { try apply(segment, presets: presets, fromPreset: true) }
        }
        for segment in segments {
            let name = segment.prefix { $0 != ":" }
            if onlyPresets, name != "preset", name != "pr" {
                throw .badRequest("only presets are allowed in URLs here, not \"\(name)\"")
            }
            try apply(segment, presets: presets, fromPreset: false)
        }
    }

    /// One segment into the options. Presets expand in place, so later segments override them.
    package mutating func apply(_ segment: String, presets: ProxyPresets, fromPreset: Bool) throws(ProxyError) {
        let arguments = OptionArguments(segment)
        switch arguments.name {
        case "resize", "rs":
            try arguments.allow(at: 5)
            if let type = try arguments.resizingType(0) { resizingType = type }
            if let width = try arguments.dimension(1) { self.width = width }
            if let height = try arguments.dimension(2) { self.height = height }
            if let enlarge = try arguments.bool(3) { self.enlarge = enlarge }
            try arguments.refuseExtend(4)
        case "size", "s":
            try arguments.allow(at: 4)
            if let width = try arguments.dimension(0) { self.width = width }
            if let height = try arguments.dimension(1) { self.height = height }
            if let enlarge = try arguments.bool(2) { self.enlarge = enlarge }
            try arguments.refuseExtend(3)
        case "resizing_type", "rt":
            try arguments.allow(at: 1)
            resizingType = try arguments.required(arguments.resizingType(0))
        case "width", "w":
            try arguments.allow(at: 1)
            width = try arguments.required(arguments.dimension(0))
        case "height", "h":
            try arguments.allow(at: 1)
            height = try arguments.required(arguments.dimension(0))
        case "enlarge", "el":
            try arguments.allow(at: 1)
            enlarge = try arguments.required(arguments.bool(0))
        case "extend", "ex":
            try arguments.refuseExtend(0)
        case "gravity", "g":
            gravity = try arguments.gravity(from: 0)
        case "crop", "c":
            try arguments.allow(at: 5)
            let width = try arguments.required(arguments.cropSide(0))
            let height = try arguments.required(arguments.cropSide(1))
            crop = Crop(width: width, height: height, gravity: arguments.has(2) ? try arguments.gravity(from: 2) : nil)
        case "quality", "q":
            try arguments.allow(at: 1)
            quality = try arguments.required(arguments.integer(0, in: 0...100))
        case "format", "f", "ext":
            try arguments.allow(at: 1)
            let name = try arguments.required(arguments.text(0))
            guard let format = OutputFormat(name: name.lowercased()) else {
                throw .badRequest("format \"\(name)\" is not one of jpg, png, webp, avif, gif")
            }
            self.format = format
        case "blur", "bl":
            try arguments.allow(at: 1)
            blur = try arguments.required(arguments.number(0, in: 0...100))
        case "sharpen", "sh":
            try arguments.allow(at: 1)
            sharpen = try arguments.required(arguments.number(0, in: 0...100))
        case "rotate", "rot":
            try arguments.allow(at: 1)
            let angle = try arguments.required(arguments.integer(0, in: -3600...3600))
            guard angle % 90 == 0 else { throw .badRequest("rotate takes multiples of 90 degrees, not \(angle)") }
            rotate = (angle % 360 + 360) % 360
        case "dpr":
            try arguments.allow(at: 1)
            let ratio = try arguments.required(arguments.number(0, in: 0...8))
            guard ratio > 0 else { throw .badRequest("dpr must be above 0") }
            dpr = ratio
        case "background", "bg":
            background = try arguments.color(from: 0)
        case "strip_metadata", "sm":
            try arguments.allow(at: 1)
            stripMetadata = try arguments.required(arguments.bool(0))
        case "preset", "pr":
            guard !fromPreset else { throw .badRequest("a preset cannot name other presets") }
            for name in arguments.all {
                guard let definition = presets.definitions[name] else {
                    throw .badRequest("unknown preset \"\(name.prefix(40))\"")
                }
                for presetSegment in definition { try apply(presetSegment, presets: presets, fromPreset: true) }
                self.presets.append(name)
            }
        case "cachebuster", "cb":
            try arguments.allow(at: 1)
            cacheBuster = arguments.text(0) ?? ""
        case "expires", "exp":
            try arguments.allow(at: 1)
            expires = try arguments.required(arguments.integer(0, in: 0...Int(Int64.max)))
        case "max_bytes", "mb":
            try arguments.allow(at: 1)
            maxBytes = try arguments.required(arguments.integer(0, in: 0...Int(Int32.max)))
        case "frame":
            try arguments.allow(at: 1)
            frame = try arguments.required(arguments.integer(0, in: 0...Int(Int32.max)))
        case "round":
            try arguments.allow(at: 1)
            cornerRadius = try arguments.required(arguments.number(0, in: 0...100_000))
        default:
            throw .badRequest("unknown option \"\(arguments.name.prefix(40))\"")
        }
    }
}
