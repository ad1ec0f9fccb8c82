import Foundation

/// The OpenTelemetry SDKs' `OTEL_*` variables, read as the SDKs read them: an empty value is no value, a
/// signal-specific name (`OTEL_EXPORTER_OTLP_TRACES_*`) wins over the general one, durations are milliseconds, and
/// key-value lists are `key=value,…` with percent-encoded values. A value that cannot be read stops the start with
/// a line naming the variable (the SDKs would fall back to a default; a proxy that silently traces elsewhere than
/// asked is worse than one that does not start).
struct OpenTelemetryVariables {
    typealias Found = ServeSettingSource.Found
    let environment: [String: String]

    /// The first of `names` set to more than blanks, trimmed.
    func first(_ names: String...) -> Found? {
        for name in names {
            let text = environment[name]?.trimmingCharacters(in: .whitespaces) ?? ""
            if !text.isEmpty { return Found(origin: name, text: text) }
        }
        return nil
    }

    /// `OTEL_EXPORTER_OTLP_TRACES_<name>`, else `OTEL_EXPORTER_OTLP_<name>`.
    func exporter(_ name: String) -> Found? {
        first("OTEL_EXPORTER_OTLP_TRACES_\(name)", "OTEL_EXPORTER_OTLP_\(name)")
    }

    /// A whole number at least `minimum`.
    static func wholeNumber(_ found: Found, minimum: Int) throws -> Int {
        guard let value = Int(found.text), value >= minimum else {
            throw ServeError("\(found.origin)=\(found.text): expected a whole number, at least \(minimum)")
        }
        return value
    }

    /// A positive whole number of milliseconds.
    static func milliseconds(_ found: Found) throws -> Duration {
        .milliseconds(try wholeNumber(found, minimum: 1))
    }

    /// `key=value` entries separated by commas, keys and values trimmed, values percent-decoded (the W3C
    /// baggage-like form the SDKs read `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_RESOURCE_ATTRIBUTES` in). Blank
    /// entries are skipped. The message for a malformed entry gives its position, not its text, which may be a
    /// credential.
    static func keyValues(_ found: Found) throws -> [(key: String, value: String)] {
        var pairs = [(key: String, value: String)]()
        for (index, entry) in found.text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            guard !entry.allSatisfy(\.isWhitespace) else { continue }
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            guard parts.count == 2, !key.isEmpty,
                  let value = parts[1].trimmingCharacters(in: .whitespaces).removingPercentEncoding
            else {
                throw ServeError("\(found.origin): entry \(index + 1) is not key=value (with %-encoded special "
                                 + "characters in the value)")
            }
            pairs.append((key, value))
        }
        return pairs
    }

    /// `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`: the share of traces recorded and whether a caller's
    /// sampled flag decides instead. Default `parentbased_always_on`.
    func sampler() throws -> (ratio: Double, followsParent: Bool) {
        let sampler = first("OTEL_TRACES_SAMPLER")
        let name = sampler?.text.lowercased() ?? "parentbased_always_on"
        let followsParent = name.hasPrefix("parentbased_")
        switch name {
        case "always_on", "parentbased_always_on": return (1, followsParent)
        case "always_off", "parentbased_always_off": return (0, followsParent)
        case "traceidratio", "parentbased_traceidratio":
            guard let argument = first("OTEL_TRACES_SAMPLER_ARG") else { return (1, followsParent) }
            guard let ratio = Double(argument.text), ratio.isFinite, (0...1).contains(ratio) else {
                throw ServeError("\(argument.origin)=\(argument.text): expected a ratio from 0 to 1, as 0.25")
            }
            return (ratio, followsParent)
        default:
            throw ServeError("OTEL_TRACES_SAMPLER=\(sampler?.text ?? name): expected always_on, always_off, "
                             + "traceidratio, parentbased_always_on, parentbased_always_off or "
                             + "parentbased_traceidratio (remote and X-Ray samplers are not supported)")
        }
    }

    /// `OTEL_PROPAGATORS` (default `tracecontext,baggage`): whether a request's `traceparent` is read, and the
    /// propagators named that are accepted but not read here (`baggage` is not among them: it carries no trace,
    /// so ignoring it loses nothing).
    func propagators() throws -> (readsTraceContext: Bool, ignored: [String]) {
        guard let found = first("OTEL_PROPAGATORS") else { return (true, []) }
        let names = found.text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        let known = ["tracecontext", "baggage", "b3", "b3multi", "jaeger", "xray", "ottrace", "none"]
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw ServeError("OTEL_PROPAGATORS: \(unknown) is not a propagator; expected some of "
                             + known.joined(separator: ", "))
        }
        let ignored = names.filter { !["tracecontext", "baggage", "none"].contains($0) }
        return (names.contains("tracecontext"), ignored)
    }

    /// An OpenTelemetry boolean: `true` in any case is true, anything else false (the SDKs' rule).
    func isTrue(_ name: String) -> Bool {
        first(name)?.text.lowercased() == "true"
    }
}
