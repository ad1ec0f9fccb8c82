import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import WebImage

/// An XMP packet as the `/info` answer's `xmp` object: one object per namespace prefix (`dc`, `aux`,
/// `photoshop`, as the packet writes them), holding that namespace's properties by local name. A simple property
/// is its text; a list (`rdf:Bag`, `rdf:Seq`) an array of its items' texts; an alternative (`rdf:Alt`, a title in
/// several languages) its first item's text; a structure an object of its fields. Properties written as
/// attributes of a description count the same. The packet is parsed as a stream of events: no entity is
/// resolved, nothing is fetched.
enum XMPDescription {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    static func fields(_ xmp: Data) -> [(String, JSONValue)] {
        guard XMLText.isParseable(xmp) else { return [] }
        let reader = Reader()
        let parser = XMLParser(data: xmp)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse() else { return [] }
        return reader.namespaces.map { ($0.prefix, .object($0.properties)) }
    }

    /// One element being read below a description: its name and what it holds so far.
    private final class Node {
        let name: String
        var text = ""
        var items: [JSONValue] = []
        var fields: [(String, JSONValue)] = []
        /// Whether it holds a list (its items), and whether that list is an alternative (its first item).
        var isList = false
        var isAlternative = false
        init(name: String) { self.name = name }

        /// What the element stands for once it ends.
        var value: JSONValue {
            if isAlternative { return items.first ?? .string("") }
            if isList { return .array(items) }
            if !fields.isEmpty { return .object(fields) }
            return .string(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Collects properties from the parser's events. A parser's delegate is a class by XMLParser's design; it
    /// lives only for one parse on one thread.
    private final class Reader: NSObject, XMLParserDelegate {
        var namespaces: [(prefix: String, properties: [(String, JSONValue)])] = []
        /// The prefixes that name the RDF namespace (almost always `rdf`).
        private var rdfPrefixes: Set<String> = ["rdf"]
        /// Elements open below the current description, outermost first.
        private var stack: [Node] = []
        private var descriptionDepth = 0

        private func add(_ qualifiedName: String, _ value: JSONValue) {
            let prefix = XMLText.prefix(qualifiedName), local = XMLText.localName(qualifiedName)
            guard !prefix.isEmpty, !rdfPrefixes.contains(prefix), prefix != "xmlns", prefix != "xml" else { return }
            if let index = namespaces.firstIndex(where: { $0.prefix == prefix }) {
                namespaces[index].properties.append((local, value))
            } else {
                namespaces.append((prefix, [(local, value)]))
            }
        }

        private func isRDF(_ name: String, _ local: String) -> Bool {
            rdfPrefixes.contains(XMLText.prefix(name)) && XMLText.localName(name) == local
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            for (attribute, value) in attributes where attribute.hasPrefix("xmlns:") && value == rdf {
                rdfPrefixes.insert(XMLText.localName(attribute))
            }
            if isRDF(name, "Description"), stack.isEmpty {
                descriptionDepth += 1
                for (attribute, value) in attributes.sorted(by: { $0.key < $1.key }) { add(attribute, .string(value)) }
                return
            }
            guard descriptionDepth > 0 else { return }
            let node = Node(name: name)
            // A structure written as attributes (`rdf:parseType` aside) holds them as fields.
            for (attribute, value) in attributes.sorted(by: { $0.key < $1.key })
            where !attribute.hasPrefix("xmlns") && !rdfPrefixes.contains(XMLText.prefix(attribute))
                && XMLText.prefix(attribute) != "xml" {
                node.fields.append((XMLText.localName(attribute), .string(value)))
            }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?,
                    qualifiedName: String?) {
            if stack.isEmpty {
                if isRDF(name, "Description"), descriptionDepth > 0 { descriptionDepth -= 1 }
                return
            }
            let node = stack.removeLast()
            guard let parent = stack.last else {
                add(node.name, node.value)
                return
            }
            if isRDF(node.name, "li") {
                parent.items.append(node.value)
            } else if isRDF(node.name, "Bag") || isRDF(node.name, "Seq") || isRDF(node.name, "Alt") {
                parent.items = node.items
                parent.isList = true
                parent.isAlternative = isRDF(node.name, "Alt")
            } else if isRDF(node.name, "Description") {
                parent.fields += node.fields  // a structure written as a nested description
            } else {
                parent.fields.append((XMLText.localName(node.name), node.value))
            }
        }
    }
}
