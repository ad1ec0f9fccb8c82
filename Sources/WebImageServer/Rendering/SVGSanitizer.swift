import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An SVG made safe to answer as SVG, by an allow-list (``SVGAllowList``): only SVG's drawing elements, in SVG's
/// namespace, with SVG's presentation and geometry attributes. Nothing else is kept: no script, no element of
/// another namespace (XHTML's `object`, `embed` or `button` inside an SVG), no `foreignObject`, no event handler
/// (`on…`), no animation of anything but what is drawn (an animated `href` or handler would run script).
/// References stay inside the document (`#id`), but for a raster `data:` image in `<image>` and `<feImage>`;
/// styles and attribute values load nothing (``SVGValues``). The document is parsed and written anew, so what is
/// kept is well-formed; comments, processing instructions and the document type (with any entities it declares)
/// are left out. Its root must be an `svg` element.
struct SVGSanitizer {
    /// Why an SVG could not be sanitised: it is not a well-formed XML document, or not an SVG one.
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
        let parsed = parser.parse()
        if let refusal = writer.refusal { throw Failure(reason: refusal) }
        guard parsed, writer.depth == 0, writer.sawRoot else {
            throw Failure(reason: parser.parserError.map { "\($0.localizedDescription)" } ?? "not a whole document")
        }
        return Data(writer.output.utf8)
    }

    /// Rewrites the parser's events as a document, leaving out what is not allowed. A parser's delegate is a
    /// class by XMLParser's design; it lives only for one parse on one thread.
    ///
    /// The parser runs without namespace processing (it then hands over names as written, and declarations as
    /// attributes), so the namespace each prefix names is tracked here, one scope per element kept.
    private final class Writer: NSObject, XMLParserDelegate {
        var output = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        var depth = 0
        var sawRoot = false
        /// Why the document is not an SVG one, once that is known (the parse is then stopped).
        var refusal: String?
        /// How deep inside a dropped element the parser is (0: not inside one).
        private var skipping = 0
        /// Whether the last element opened has no content written yet (so it may close as `<x/>`).
        private var openTag = false
        /// For each element kept and still open, the namespace each prefix names there (`""`: the default one).
        private var scopes: [[String: String]] = [["xml": "http://www.w3.org/XML/1998/namespace"]]
        /// A `style` element being read: its start tag, name and text, written at its end if the text is inert.
        private var style: (tag: String, name: String, text: String)?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            depth += 1
            let isRoot = !sawRoot
            sawRoot = true
            // A `style` element holds only text: anything inside it is dropped with its content.
            if skipping > 0 || style != nil {
                skipping += 1
                return
            }
            var scope = scopes[scopes.count - 1]
            for (attribute, value) in attributes where attribute == "xmlns" || attribute.hasPrefix("xmlns:") {
                scope[attribute == "xmlns" ? "" : String(attribute.dropFirst("xmlns:".count))] = value
            }
            let local = XMLText.localName(name)
            guard Self.namespace(of: XMLText.prefix(name), in: scope) == SVGAllowList.svgNamespace,
                  SVGAllowList.elements.contains(local), Self.changesOnlyDrawing(local, attributes)
            else {
                if isRoot { refuse(parser, "its root element <\(name)> is not SVG's <svg>") }
                skipping = 1
                return
            }
            if isRoot, local != "svg" { refuse(parser, "its root element <\(name)> is not SVG's <svg>") }
            scopes.append(scope)
            var written = attributes.compactMap { attribute, value in
                Self.kept(attribute, value, of: local, in: scope).map { (attribute, $0) }
            }
            if isRoot, attributes["xmlns"] != SVGAllowList.svgNamespace {
                // An element in no namespace is read as SVG here; a browser reads it so once the root says it.
                written.append(("xmlns", SVGAllowList.svgNamespace))
            }
            var tag = "<" + name
            for (attribute, value) in written.sorted(by: { $0.0 < $1.0 }) {
                tag += " \(attribute)=\"\(XMLText.escaped(value, quotes: true))\""
            }
            if local == "style" {
                style = (tag + ">", name, "")
                return
            }
            closeOpenTag()
            output += tag
            openTag = true
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            depth -= 1
            if skipping > 0 {
                skipping -= 1
                return
            }
            scopes.removeLast()
            if let (tag, name, text) = style.take() {
                // A sheet that could load or run anything goes whole: a rule cut out of it could change the rest.
                guard SVGValues.isInert(css: text) else { return }
                closeOpenTag()
                output += tag + XMLText.escaped(text, quotes: false) + "</\(name)>"
            } else if openTag {
                output += "/>"
                openTag = false
            } else {
                output += "</\(name)>"
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            write(text: string)
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            // Written as text: a "]]>" inside cannot end a section that is not there.
            write(text: String(decoding: block, as: UTF8.self))
        }

        private func write(text: String) {
            guard skipping == 0, depth > 0 else { return }
            if style != nil {
                style?.text += text
                return
            }
            closeOpenTag()
            output += XMLText.escaped(text, quotes: false)
        }

        private func closeOpenTag() {
            if openTag {
                output += ">"
                openTag = false
            }
        }

        private func refuse(_ parser: XMLParser, _ reason: String) {
            refusal = refusal ?? reason
            parser.abortParsing()
        }

        /// The namespace of a name with `prefix` in `scope`. An unprefixed element in no namespace is taken for an
        /// SVG one: many SVG files in use never declare theirs.
        private static func namespace(of prefix: String, in scope: [String: String]) -> String? {
            let declared = scope[prefix]
            if prefix.isEmpty, declared == nil || declared == "" { return SVGAllowList.svgNamespace }
            return declared
        }

        /// Whether the element `local` with `attributes`, when it is an animation, changes only what is drawn.
        /// (`animateMotion` moves its element along a path and needs no `attributeName`.)
        private static func changesOnlyDrawing(_ local: String, _ attributes: [String: String]) -> Bool {
            guard SVGAllowList.animationElements.contains(local) else { return true }
            guard let target = attributes["attributeName"]?.trimmingCharacters(in: .whitespacesAndNewlines) else {
                return local == "animateMotion"
            }
            return SVGAllowList.animatable.contains(target)
        }

        /// The value to write for `attribute` of the element `local`, or `nil` when the attribute is left out.
        /// Namespace declarations are kept for SVG's and XLink's namespaces only (the elements and attributes
        /// kept are in no other); a default namespace is only ever SVG's.
        private static func kept(_ attribute: String, _ value: String, of local: String,
                                 in scope: [String: String]) -> String? {
            let prefix = XMLText.prefix(attribute), name = XMLText.localName(attribute)
            switch prefix {
            case "" where name == "xmlns":
                return value == SVGAllowList.svgNamespace ? value : nil
            case "xmlns":
                guard name != "xml", name != "xmlns",
                      value == SVGAllowList.svgNamespace || value == SVGAllowList.xlinkNamespace else { return nil }
                return value
            case "xml":
                guard SVGAllowList.xmlAttributes.contains(name) else { return nil }
            case "":
                guard SVGAllowList.attributes.contains(name) else { return nil }
                if name == "href" { return SVGValues.allowedReference(value, in: local) }
            default:
                guard scope[prefix] == SVGAllowList.xlinkNamespace, SVGAllowList.xlinkAttributes.contains(name)
                else { return nil }
                if name == "href" { return SVGValues.allowedReference(value, in: local) }
            }
            return SVGValues.isInert(css: value) ? value : nil
        }
    }
}
