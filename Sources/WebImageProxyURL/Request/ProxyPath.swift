import Foundation

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
    /// - Throws: ``ProxyError`` 400 with the reason when the path has no signature or no source, or the source
    ///   cannot be decoded.
    public init(parsing path: String) throws(ProxyError) {
        guard path.hasPrefix("/") else { throw .badRequest("the path must start with /") }
        let afterSlash = path.dropFirst()
        guard let signatureEnd = afterSlash.firstIndex(of: "/") else {
            throw .badRequest("the path needs a signature, options and a source: /SIGNATURE/OPTIONS/SOURCE")
        }
        let signature = afterSlash[..<signatureEnd]
        guard !signature.isEmpty else { throw .badRequest("the signature segment is empty") }
        self.signature = String(signature)
        signedPart = String(afterSlash[signatureEnd...])

        var options = [String]()
        var parsed: (source: String, outputExtension: String?)
        var rest = afterSlash[afterSlash.index(after: signatureEnd)...]
        while true {
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            let segment = rest[..<end]
            if segment == "plain" {
                guard end < rest.endIndex else { throw .badRequest("no source URL after /plain/") }
                parsed = try Self.plainSource(rest[rest.index(after: end)...])
                break
            }
            if segment == "enc" { throw .badRequest("encrypted source URLs (/enc/) are not supported") }
            if segment.contains(":") {
                options.append(String(segment))
                guard end < rest.endIndex else { throw .badRequest("no source URL after the options") }
                rest = rest[rest.index(after: end)...]
                continue
            }
            guard !segment.isEmpty else { throw .badRequest("empty path segment where an option or the source goes") }
            parsed = try Self.encodedSource(rest)
            break
        }
        self.options = options
        (source, outputExtension) = parsed
    }

    /// `http://host/a.jpg@png`: percent-decoded; the extension is after the last `@` (a literal `@` in the
    /// source is written `%40`).
    private static func plainSource(_ text: Substring) throws(ProxyError) -> (String, String?) {
        var encoded = text
        var outputExtension: String?
        if let at = text.lastIndex(of: "@") {
            encoded = text[..<at]
            outputExtension = try Self.outputExtension(text[text.index(after: at)...])
        }
        guard let source = String(encoded).removingPercentEncoding, !source.isEmpty else {
            throw .badRequest("the plain source URL is empty or its percent-encoding is broken")
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
        else { throw .badRequest("the source is neither an option nor URL-safe Base64 of a URL") }
        return (source, outputExtension)
    }

    private static func outputExtension(_ text: Substring) throws(ProxyError) -> String? {
        guard !text.isEmpty else { return nil }
        guard text.count <= 8, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw .badRequest("the extension \"\(text.prefix(16))\" is not a format name")
        }
        return text.lowercased()
    }
}
