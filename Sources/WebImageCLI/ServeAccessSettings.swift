import WebImageServer

extension ServeSettings {
    /// Who may ask and where: `--secret` (`IMGPROXY_SECRET`), `--allow-origin` (`IMGPROXY_ALLOW_ORIGIN`) and
    /// `--path-prefix` (`IMGPROXY_PATH_PREFIX`). An empty value is no value, as in imgproxy.
    func access(_ configuration: inout ProxyConfiguration) throws {
        if let secret = source.text(command.secret, flag: "--secret", "SECRET", imgproxy: ["IMGPROXY_SECRET"]),
           !secret.text.isEmpty {
            try Self.checkHeaderValue(secret)
            configuration.secret = secret.text
        }
        if let origin = source.text(command.allowOrigin, flag: "--allow-origin", "ALLOW_ORIGIN",
                                    imgproxy: ["IMGPROXY_ALLOW_ORIGIN"]),
           !origin.text.isEmpty {
            try Self.checkHeaderValue(origin)
            configuration.allowedOrigin = origin.text
        }
        if let prefix = source.text(command.pathPrefix, flag: "--path-prefix", "PATH_PREFIX",
                                    imgproxy: ["IMGPROXY_PATH_PREFIX"]),
           !prefix.text.isEmpty {
            try Self.checkPath(prefix, example: "/images")
            var path = Substring(prefix.text)
            while path.hasSuffix("/") { path = path.dropLast() }
            configuration.pathPrefix = String(path)
        }
    }

    /// A path a request's is compared with (a prefix, a health path): request paths start with `/` and hold no
    /// query, fragment or blanks, so one that does not could never match and the start stops instead.
    static func checkPath(_ found: ServeSettingSource.Found, example: String) throws {
        guard found.text.hasPrefix("/"), !found.text.contains(where: { "?#".contains($0) || $0.isWhitespace }) else {
            throw ServeError("\(found.origin) \(found.text): expected a path starting with /, as \(example)")
        }
    }

    /// A value sent or compared as a header field's: a line break or other control character in it could only be
    /// a mistake (or split the header), so the start stops instead.
    static func checkHeaderValue(_ found: ServeSettingSource.Found) throws {
        guard !found.text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ServeError("\(found.origin): control characters (a line break?) cannot be in a header")
        }
    }
}
