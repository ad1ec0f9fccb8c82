import ArgumentParser
import Foundation
import Logging
import WebImageServer

extension ServeSettings {
    /// The extra health path (`--health-check-path`, imgproxy's `IMGPROXY_HEALTH_CHECK_PATH`) and the Prometheus
    /// listener (`--prometheus-bind` and `--prometheus-namespace`, imgproxy's `IMGPROXY_PROMETHEUS_BIND` and
    /// `IMGPROXY_PROMETHEUS_NAMESPACE`). An empty value is no value, as in imgproxy.
    func operations(_ configuration: inout ProxyConfiguration) throws {
        let options = command.operationsOptions
        if let path = source.text(options.healthCheckPath, flag: "--health-check-path", "HEALTH_CHECK_PATH",
                                  imgproxy: ["IMGPROXY_HEALTH_CHECK_PATH"]),
           !path.text.isEmpty {
            try Self.checkPath(path, example: "/healthz")  // compared with the request's path after the prefix
            configuration.operations.healthCheckPath = path.text
        }
        if let bind = source.text(options.prometheusBind, flag: "--prometheus-bind", "PROMETHEUS_BIND",
                                  imgproxy: ["IMGPROXY_PROMETHEUS_BIND"]),
           !bind.text.isEmpty {
            let address = try Self.address(bind.text, origin: bind.origin, emptyHostMeansAll: bind.isImgproxy)
            // imgproxy refuses the image server's own address: two listeners cannot share it.
            if address.1 != 0, address.1 == configuration.port, configuration.unixSocketPath == nil,
               address.0 == configuration.host {
                throw ServeError("\(bind.origin) \(bind.text): the image server listens there already")
            }
            configuration.operations.prometheusBind = address
        }
        if let namespace = source.text(options.prometheusNamespace, flag: "--prometheus-namespace",
                                       "PROMETHEUS_NAMESPACE", imgproxy: ["IMGPROXY_PROMETHEUS_NAMESPACE"]) {
            // A metric name is [a-zA-Z_:][a-zA-Z0-9_:]*: another character would make every series unreadable.
            guard namespace.text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }),
                  namespace.text.first?.isNumber != true
            else {
                throw ServeError("\(namespace.origin) \(namespace.text): expected letters, digits and _, as imgproxy")
            }
            configuration.operations.prometheusNamespace = namespace.text
        }
    }

    /// How the log is written: `--log-format` (imgproxy's `IMGPROXY_LOG_FORMAT`: pretty, structured, json or gcp)
    /// and `--log-level` (`IMGPROXY_LOG_LEVEL`: debug, info, warn or error). Read before the other settings, so
    /// that their mistakes are written in the format asked for.
    func logging() throws -> ServeLogging {
        let options = command.operationsOptions
        var logging = ServeLogging()
        if let format = source.text(options.logFormat, flag: "--log-format", "LOG_FORMAT",
                                    imgproxy: ["IMGPROXY_LOG_FORMAT"]),
           !format.text.isEmpty {
            guard let known = LogLineFormat(rawValue: format.text.lowercased()) else {
                throw ServeError("\(format.origin) \(format.text): expected pretty, structured, json or gcp")
            }
            logging.format = known
        }
        if let level = source.text(options.logLevel, flag: "--log-level", "LOG_LEVEL",
                                   imgproxy: ["IMGPROXY_LOG_LEVEL"]),
           !level.text.isEmpty {
            switch level.text.lowercased() {
            case "debug": logging.level = .debug
            case "info": logging.level = .info
            case "warn", "warning": logging.level = .warning
            case "error": logging.level = .error
            default: throw ServeError("\(level.origin) \(level.text): expected debug, info, warn or error")
            }
        }
        return logging
    }

    /// The URL `webimage health` asks: `/health` under the path prefix, at the address the server listens on
    /// (its Unix socket, or its host and port, the loopback address for a server listening on every address).
    func healthURL() throws -> String {
        var configuration = ProxyConfiguration()
        try network(&configuration)
        try access(&configuration)
        let path = configuration.pathPrefix + "/health"
        if let socket = configuration.unixSocketPath {
            guard let url = URL(httpURLWithSocketPath: socket, uri: path) else {
                throw ServeError("the socket path \(socket) cannot be in a URL")
            }
            return url.absoluteString
        }
        guard configuration.port != 0 else {
            throw ServeError("the server's port is 0 (a free one, picked at start): give the port it printed")
        }
        let host = switch configuration.host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::": "::1"
        default: configuration.host
        }
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(configuration.port)\(path)"
    }
}

/// The log `webimage serve` writes: its format and least level, and the lines written before the log starts
/// (the settings' warnings) or when the start fails, in the same format.
struct ServeLogging {
    var format = LogLineFormat.pretty
    var level = Logger.Level.info

    /// Makes every logger of the process write in this format, through one buffered standard error.
    func bootstrap() {
        let output = BufferedLogOutput.standardError
        let (format, level) = (format, level)
        LoggingSystem.bootstrap { label in
            var handler = BufferedLogHandler(label: label, output: output, format: format)
            handler.logLevel = level
            return handler
        }
    }

    /// Writes `text` on stderr now, unbuffered (the log has not started): as it is in the pretty format, as a
    /// line at `level` in the others, where a leading `warning: ` becomes the level.
    func writeNow(_ text: String, level: Logger.Level = .warning) {
        guard level >= self.level else { return }
        var message = Substring(text)
        if format != .pretty, message.hasPrefix("warning: ") { message = message.dropFirst("warning: ".count) }
        let line = format.line(level: level, message: String(message))
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// What a failed start throws: `error` itself in the pretty format (`webimage` writes it as one line), else,
    /// once it is written as an `error` line in this format, an exit status alone.
    func failure(_ error: any Error) -> any Error {
        guard format != .pretty else { return error }
        if let exit = error as? ExitCode { return exit }
        writeNow(WebImageCommand.message(for: error), level: .error)
        return ExitCode.failure
    }
}
