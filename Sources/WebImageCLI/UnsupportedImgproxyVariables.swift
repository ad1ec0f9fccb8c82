import Foundation

/// The `IMGPROXY_*` variables of an environment that `webimage serve` does not read: an imgproxy deployment's
/// environment must start the server, so they are not errors, but each gets one line on stderr, since whoever set
/// one expects something of it.
enum UnsupportedImgproxyVariables {
    /// Switches of imgproxy that `webimage serve` has no setting for, with the value that says what it does
    /// anyway (it always sanitises SVG, rotates by EXIF and sends ETag and Last-Modified; it never sends debug
    /// headers or turns TLS verification off). Set to that value, they need no warning.
    static let alreadySo: [String: Bool] = [
        "IMGPROXY_SANITIZE_SVG": true, "IMGPROXY_AUTO_ROTATE": true, "IMGPROXY_STRIP_COLOR_PROFILE": true,
        "IMGPROXY_USE_ETAG": true, "IMGPROXY_USE_LAST_MODIFIED": true,
        "IMGPROXY_USE_ABS": false, "IMGPROXY_USE_SWIFT": false,
        "IMGPROXY_ENABLE_DEBUG_HEADERS": false, "IMGPROXY_IGNORE_SSL_VERIFICATION": false,
        "IMGPROXY_DEVELOPMENT_ERRORS_MODE": false, "IMGPROXY_SO_REUSEPORT": false,
        "IMGPROXY_COOKIE_PASSTHROUGH": false, "IMGPROXY_COOKIE_PASSTHROUGH_ALL": false,
        "IMGPROXY_USE_LINEAR_COLORSPACE": false, "IMGPROXY_DISABLE_SHRINK_ON_LOAD": false,
        "IMGPROXY_BASE64_URL_INCLUDES_FILENAME": false, "IMGPROXY_RETURN_ATTACHMENT": false,
        "IMGPROXY_PNG_UNLIMITED": false, "IMGPROXY_SVG_UNLIMITED": false,
        "IMGPROXY_ENFORCE_WEBP": false, "IMGPROXY_ENFORCE_AVIF": false, "IMGPROXY_ENFORCE_JXL": false,
        "IMGPROXY_AUTO_JXL": false, "IMGPROXY_DATADOG_ENABLE": false,
        "IMGPROXY_SYSLOG_ENABLE": false, "IMGPROXY_LOG_MEM_STATS": false,
        "IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS": false, "IMGPROXY_OPEN_TELEMETRY_ENABLE_LOGS": false,
        "IMGPROXY_OPEN_TELEMETRY_PROPAGATE_EXTERNAL": false,
    ]

    /// Variables of imgproxy that are not honoured by design, with what happens here instead (said in their
    /// warning, so that nobody waits for them to be supported).
    static let reasons: [String: String] = [
        "IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS":
            "metrics are served with imgproxy's names on the Prometheus listener (--prometheus-bind)",
        "IMGPROXY_OPEN_TELEMETRY_ENABLE_LOGS":
            "logs go to stderr; --log-format json or gcp writes lines a collector's file receiver reads",
        "IMGPROXY_OPEN_TELEMETRY_LOGGER_NAME":
            "logs go to stderr; --log-format json or gcp writes lines a collector's file receiver reads",
        "IMGPROXY_OPEN_TELEMETRY_PROPAGATE_EXTERNAL":
            "source fetches carry no traceparent: one fetch serves every request waiting for that source",
    ]

    /// One line for each variable that is set (to more than blanks), starts with `IMGPROXY_` (or imgproxy's own
    /// misspelling `IMGRPOXY_`), was not read by any setting, and is not at its ``alreadySo`` value; by name,
    /// with its ``reasons`` entry when it has one.
    static func warnings(environment: [String: String], consulted: Set<String>) -> [String] {
        environment.keys.sorted().compactMap { name in
            guard name.hasPrefix("IMGPROXY_") || name.hasPrefix("IMGRPOXY_"), !consulted.contains(name),
                  let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty
            else { return nil }
            if let inert = alreadySo[name], ServeSettingSource.goBoolean(value) == inert { return nil }
            if let reason = reasons[name] { return "warning: \(name) is ignored by webimage serve: \(reason)" }
            return "warning: \(name) is not supported by webimage serve (yet): ignored"
        }
    }
}
