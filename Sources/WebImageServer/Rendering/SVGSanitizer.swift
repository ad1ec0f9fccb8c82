import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An SVG made safe to answer as an SVG (imgproxy's rules): no element that runs or submits anything (`script`,
/// `iframe`, `form`), no event-handler attribute (`on…`), and references only where they cannot reach out:
/// `<use>` to the same document, `<image>` to http, https or `data:`, anything else to http, https or a
/// relative or same-document reference. The document is parsed and written anew, so what is kept is well-formed;
/// comments, processing instructions and the document type (with any entities it declares) are left out.
struct SVGSanitizer {
    /// Why an SVG could not be sanitised: it is not a well-formed XML document.
    struct Failure: Error, Sendable {
        let reason: String
    }

    /// The sanitised document's bytes (UTF-8, with an XML declaration).
    static func sanitized(_ data: Data) throws(Failure) -> Data {
        guard XMLText.isParseable(data) else { throw Failure(reason: "the document is not UTF-8 text") }
        let writer = Writer()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = writer
        guard parser.parse(), writer.depth == 0, writer.sawRoot else {
            throw Failure(reason: parser.parserError.map { "\($0.localizedDescription)" } ?? "not a whole document")
        }
        return Data(writer.output.utf8)
    }

    /// Whether `value` may stay in an `href` of `element`.
    static func allows(href value: String, in element: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return true }
        if element == "use" { return false }
        guard let colon = trimmed.firstIndex(of: ":"),
              let first = trimmed.first, first.isASCII, first.isLetter,
              trimmed[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return true }  // no scheme: a relative reference
        let scheme = trimmed[..<colon].lowercased()
        return scheme == "http" || scheme == "https" || (element == "image" && scheme == "data")
    }

    /// Rewrites the parser's events as a document, leaving out what is unsafe. A parser's delegate is a class
    /// by XMLParser's design; it lives only for one parse on one thread.
    private final class Writer: NSObject, XMLParserDelegate {
        var output = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        var depth = 0
        var sawRoot = false
        /// How deep inside a dropped element the parser is (0: not inside one).
        private var skipping = 0
        /// Whether the last element opened has no content written yet (so it may close as `<x/>`).
        private var openTag = false

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            depth += 1
            sawRoot = true
            let local = XMLText.localName(name).lowercased()
            if skipping > 0 || ["script", "iframe", "form"].contains(local) {
                skipping += 1
                return
            }
            closeOpenTag()
            output += "<" + name
            for (attribute, value) in attributes.sorted(by: { $0.key < $1.key }) {
                let attributeName = XMLText.localName(attribute).lowercased()
                if attributeName.hasPrefix("on") { continue }
                if attributeName == "href", !SVGSanitizer.allows(href: value, in: local) { continue }
                output += " \(attribute)=\"\(XMLText.escaped(value, quotes: true))\""
            }
            openTag = true
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            depth -= 1
            if skipping > 0 {
                skipping -= 1
                return
            }
            if openTag {
                output += "/>"
                openTag = false
            } else {
                output += "</\(name)>"
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard skipping == 0, depth > 0 else { return }
            closeOpenTag()
            output += XMLText.escaped(string, quotes: false)
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            guard skipping == 0, depth > 0 else { return }
            closeOpenTag()
            // Written as text: a "]]>" inside cannot end a section that is not there.
            output += XMLText.escaped(String(decoding: block, as: UTF8.self), quotes: false)
        }

        private func closeOpenTag() {
            if openTag {
                output += ">"
                openTag = false
            }
        }
    }
}
