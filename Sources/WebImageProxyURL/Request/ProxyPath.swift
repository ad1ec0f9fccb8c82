import Foundation
import WebImageCore

/// A proxy URL's path taken apart, in imgproxy's two forms:
///
///     /SIGNATURE/OPTION/OPTION/…/plain/PERCENT_ENCODED_SOURCE[@EXTENSION]
///     /SIGNATURE/OPTION/OPTION/…/BASE64URL_SOURCE[.EXTENSION]   (the Base64 may be split by `/`)
///
/// An option segment is `name:argument:…`; the first segment without a `:` (or `plain`) starts the source. Only the
/// parts are read here; their meaning is ``ProcessingOptions``'s.
public struct ProxyPath: Sendable, Equatable {
    /// The first segment, as written.
    public let signature: String
    /// Everything after the signature, from its `/` on: what the signature signs.
    public let signedPart: String
    /// The option segments, in order, as written.
    public let options: [String]
    /// The source URL, decoded.
    public let source: String
    /// The extension after `@` (plain) or `.` (Base64), lowercased; `nil` when there is none.
    public let outputExtension: String?

    /// Takes apart the path of a request (still percent-encoded, without the query string).
    ///
    /// What proxies and CDNs in front are known to do to a path is undone first, as imgproxy does (the signature
    /// is checked on the restored path): `%3A` in options back to `:`, and a plain source's `scheme:/host`
    /// (double slash collapsed) back to `scheme://host`.
    /// - Parameter onlyPresets: the segment after the signature is a `:`-separated list of preset names, not
    ///   options (imgproxy's `IMGPROXY_ONLY_PRESETS` form, `/SIGNATURE/thumb:pngify/plain/…`).
    /// - Throws: ``ProxyError`` 404 with the reason when the path has no signature or no source, or the source
    ///   cannot be decoded.
    public init(parsing rawPath: String, onlyPresets: Bool = false) throws(ProxyError) {
        guard rawPath.hasPrefix("/") else { throw .invalidURL("the path must start with /") }
        let afterSlash = rawPath.dropFirst()
        guard let signatureEnd = afterSlash.firstIndex(of: "/"), signatureEnd > afterSlash.startIndex else {
            throw .invalidURL("the path needs a signature, options and a source: /SIGNATURE/OPTIONS/SOURCE")
        }
        let signature = afterSlash[..<signatureEnd]
        self.signature = String(signature)
        let path = Self.restored(afterSlash[afterSlash.index(after: signatureEnd)...])
        signedPart = "/" + path

        var options = [String]()
        var parsed: (source: String, outputExtension: String?)
        var rest = path[...]
        if onlyPresets {
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            guard end < rest.endIndex, rest[..<end] != "plain" else {
                throw .invalidURL("the path needs presets and a source: /SIGNATURE/PRESET:PRESET/SOURCE")
            }
            options.append(String(rest[..<end]))
            rest = rest[rest.index(after: end)...]
        }
        while true {
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            let segment = rest[..<end]
            if segment == "plain" {
                guard end < rest.endIndex else { throw .invalidURL("no source URL after /plain/") }
                parsed = try Self.plainSource(rest[rest.index(after: end)...])
                break
            }
            if segment == "enc" { throw .invalidURL("encrypted source URLs (/enc/) are not supported") }
            if !onlyPresets, segment.utf8.contains(UInt8(ascii: ":")) {
                options.append(String(segment))
                guard end < rest.endIndex else { throw .invalidURL("no source URL after the options") }
                rest = rest[rest.index(after: end)...]
                continue
            }
            guard !segment.isEmpty else { throw .invalidURL("empty path segment where an option or the source goes") }
            parsed = try Self.encodedSource(rest)
            break
        }
        self.options = options
        (source, outputExtension) = parsed
    }

    /// `path` (after the signature) with `%3A` in its options turned back into `:` and a plain source's collapsed
    /// `scheme:/` turned back into `scheme://`.
    static func restored(_ path: Substring) -> String {
        let options: Substring, plain: Substring?
        if path.hasPrefix("plain/") {
            (options, plain) = ("", path.dropFirst("plain/".count))
        } else if let start = firstPlainSegment(in: path) {
            (options, plain) = (path[..<start], path[path.index(start, offsetBy: "/plain/".count)...])
        } else {
            (options, plain) = (path, nil)
        }
        // Byte by byte: Foundation's searches go through NSString here, and every request pays for them.
        let restoredOptions = options.utf8.contains(UInt8(ascii: "%"))
            ? String(decoding: Self.colonsRestored(options.utf8), as: UTF8.self) : String(options)
        guard let plain else { return restoredOptions }
        return (restoredOptions.isEmpty ? "" : restoredOptions + "/") + "plain/" + restoredScheme(plain)
    }

    /// Where the first `/plain/` starts in `path`.
    private static func firstPlainSegment(in path: Substring) -> Substring.Index? {
        let marker = Array("/plain/".utf8), utf8 = path.utf8
        var index = utf8.startIndex
        while let slash = utf8[index...].firstIndex(of: UInt8(ascii: "/")) {
            if utf8[slash...].starts(with: marker) { return slash }
            index = utf8.index(after: slash)
        }
        return nil
    }

    /// `bytes` with every `%3A` as `:`.
    private static func colonsRestored(_ bytes: Substring.UTF8View) -> [UInt8] {
        var restored = [UInt8]()
        restored.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index...].starts(with: [UInt8(ascii: "%"), UInt8(ascii: "3"), UInt8(ascii: "A")]) {
                restored.append(UInt8(ascii: ":"))
                index = bytes.index(index, offsetBy: 3)
            } else {
                restored.append(bytes[index])
                index = bytes.index(after: index)
            }
        }
        return restored
    }

    /// `http:/host/…` as `http://host/…`: a scheme (letters, digits, `+`, `-`, `.`) whose `//` lost a slash.
    private static func restoredScheme(_ source: Substring) -> String {
        guard let colon = source.firstIndex(of: ":"),
              source[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
              !source[..<colon].isEmpty
        else { return String(source) }
        let afterColon = source[source.index(after: colon)...]
        guard afterColon.hasPrefix("/"), !afterColon.hasPrefix("//"), afterColon.count > 1 else {
            return String(source)
        }
        return String(source[...colon]) + "/" + afterColon
    }

    /// `http://host/a.jpg@png`: percent-decoded; the extension is after the `@` (a literal `@` in the source is
    /// written `%40`). Two `@` name two formats, refused as imgproxy refuses them (404), before any fetch.
    private static func plainSource(_ text: Substring) throws(ProxyError) -> (String, String?) {
        var encoded = text
        var outputExtension: String?
        if let at = text.firstIndex(of: "@") {
            guard !text[text.index(after: at)...].contains("@") else {
                throw .invalidURL("several formats are named after @")
            }
            encoded = text[..<at]
            outputExtension = try Self.outputExtension(text[text.index(after: at)...])
        }
        guard let source = PercentDecoding.string(of: encoded), !source.isEmpty else {
            throw .invalidURL("the plain source URL is empty or its percent-encoding is broken")
        }
        return (source, outputExtension)
    }

    /// `aHR0cDov/L2EuanBn.png`: the segments joined, the extension after the last `.`, the rest URL-safe Base64
    /// of UTF-8.
    private static func encodedSource(_ text: Substring) throws(ProxyError) -> (String, String?) {
        var encoded = text.filter { $0 != "/" }[...]
        var outputExtension: String?
        if let dot = encoded.lastIndex(of: ".") {
            outputExtension = try Self.outputExtension(encoded[encoded.index(after: dot)...])
            encoded = encoded[..<dot]
        }
        guard let bytes = Base64URL.decode(encoded), !bytes.isEmpty,
              let source = String(validating: bytes, as: UTF8.self)
        else { throw .invalidURL("the source is neither an option nor URL-safe Base64 of a URL") }
        return (source, outputExtension)
    }

    private static func outputExtension(_ text: Substring) throws(ProxyError) -> String? {
        guard !text.isEmpty else { return nil }
        guard text.count <= 8, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw .invalidURL("the extension \"\(text.prefix(16))\" is not a format name")
        }
        return text.lowercased()
    }
}
