import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The copyright part of an XMP packet: the Dublin Core rights, creators, contributors and publishers, and
/// everything in the XMP Rights Management and Creative Commons namespaces. Every other property of the packet's
/// descriptions is removed, and a description left with nothing is removed. The packet is parsed as a stream of
/// events (no entity is resolved, nothing is fetched) and written anew.
enum XMPCopyright {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    static let keptDublinCore: Set<String> = ["rights", "creator", "contributor", "publisher"]
    static let keptNamespaces: Set<String> = ["http://ns.adobe.com/xap/1.0/rights/", "http://creativecommons.org/ns#"]

    /// The filtered packet; `nil` when nothing is kept or the packet is not well-formed XML.
    static func kept(_ xmp: Data) -> Data? {
        guard XMLText.isParseable(xmp) else { return nil }
        let writer = Writer()
        let parser = XMLParser(data: xmp)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = writer
        guard parser.parse(), writer.depth == 0, writer.keptAny else { return nil }
        return Data(writer.output.utf8)
    }

    static func keeps(uri: String?, localName: String) -> Bool {
        guard let uri else { return false }
        if uri == dublinCore { return keptDublinCore.contains(localName) }
        return keptNamespaces.contains(uri)
    }

    /// Rewrites the parser's events, leaving out the properties that are not kept. A parser's delegate is a class
    /// by XMLParser's design; it lives only for one parse on one thread.
    private final class Writer: NSObject, XMLParserDelegate {
        var output = ""
        var depth = 0
        var keptAny = false
        /// The namespaces in scope, innermost last: prefix (empty for the default namespace) to URI.
        private var namespaces: [[String: String]] = []
        /// How deep inside a dropped property the parser is (0: not inside one).
        private var skipping = 0
        /// The depth of the description being filtered, its text so far, and whether it keeps anything.
        private var openDescription: (depth: Int, text: String, keeps: Bool)?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            depth += 1
            var scope: [String: String] = [:]
            for (attribute, value) in attributes where attribute == "xmlns" || attribute.hasPrefix("xmlns:") {
                scope[attribute == "xmlns" ? "" : XMLText.localName(attribute)] = value
            }
            namespaces.append(scope)
            if skipping > 0 {
                skipping += 1
                return
            }
            let uri = resolve(XMLText.prefix(name)), local = XMLText.localName(name)
            var tag = "<" + name
            if var current = openDescription, depth == current.depth + 1 {
                // A property of the description: kept whole, or dropped whole.
                guard XMPCopyright.keeps(uri: uri, localName: local) else {
                    skipping = 1
                    return
                }
                current.keeps = true
                openDescription = current
            }
            let isDescription = openDescription == nil && uri == XMPCopyright.rdf && local == "Description"
            var keepsAttribute = false
            for (attribute, value) in attributes.sorted(by: { $0.key < $1.key }) {
                let prefix = XMLText.prefix(attribute)
                if isDescription, attribute != "xmlns", prefix != "xmlns" {
                    let attributeURI = resolve(prefix)
                    if attributeURI != XMPCopyright.rdf {
                        // Properties written as attributes (`photoshop:City="…"`).
                        guard XMPCopyright.keeps(uri: attributeURI, localName: XMLText.localName(attribute)) else {
                            continue
                        }
                        keepsAttribute = true
                    }
                }
                tag += " \(attribute)=\"\(XMLText.escaped(value, quotes: true))\""
            }
            tag += ">"
            if isDescription {
                openDescription = (depth, tag, keepsAttribute)
            } else {
                write(tag)
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            defer {
                namespaces.removeLast()
                depth -= 1
            }
            if skipping > 0 {
                skipping -= 1
                return
            }
            write("</\(name)>")
            if let finished = openDescription, finished.depth == depth {
                openDescription = nil
                if finished.keeps {
                    keptAny = true
                    output += finished.text
                }
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard skipping == 0, depth > 0 else { return }
            write(XMLText.escaped(string, quotes: false))
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            guard skipping == 0, depth > 0 else { return }
            write(XMLText.escaped(String(decoding: block, as: UTF8.self), quotes: false))
        }

        func parser(_ parser: XMLParser, foundProcessingInstructionWithTarget target: String, data: String?) {
            // The `xpacket` wrapper, outside the document element, is kept as it was.
            guard depth == 0, target == "xpacket", let data, !data.contains("?>") else { return }
            output += "<?xpacket \(data)?>\n"
        }

        private func write(_ text: String) {
            if openDescription != nil {
                openDescription?.text += text
            } else {
                output += text
            }
        }

        private func resolve(_ prefix: String) -> String? {
            for scope in namespaces.reversed() {
                if let uri = scope[prefix] { return uri }
            }
            return prefix == "xml" ? "http://www.w3.org/XML/1998/namespace" : nil
        }
    }
}
