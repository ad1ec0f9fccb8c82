import Foundation

/// A JSON value that keeps its object keys in the order they were given: the command line's and the proxy's
/// contracts promise fields in a fixed order, which dictionary-based encoders do not guarantee.
package enum JSONValue: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case object([(String, JSONValue)])
    case array([JSONValue])

    /// The value as compact JSON text on one line.
    package var text: String {
        switch self {
        case .string(let value): Self.quoted(value)
        case .int(let value): String(value)
        case .double(let value): value.isFinite ? String(value) : "null"
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .object(let fields):
            "{" + fields.map { "\(Self.quoted($0.0)):\($0.1.text)" }.joined(separator: ",") + "}"
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        }
    }

    /// The value as a person reads it: a string without its quotes, anything else as JSON.
    package var plainText: String {
        if case .string(let value) = self { return value }
        return text
    }

    private static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
