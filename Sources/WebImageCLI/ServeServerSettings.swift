import WebImageServer

extension ServeSettings {
    /// How many connections are served at once, `--max-clients` (`IMGPROXY_MAX_CLIENTS`), and how long requests
    /// in flight have at a stop, `--graceful-stop-timeout` (`IMGPROXY_GRACEFUL_STOP_TIMEOUT`). A limit of 0 is no
    /// limit, as in imgproxy; a stop timeout of 0 stops at once.
    func server(_ configuration: inout ProxyConfiguration) throws {
        let options = command.serverOptions
        if let clients = try source.wholeNumber(options.maxClients, flag: "--max-clients", "MAX_CLIENTS",
                                                imgproxy: ["IMGPROXY_MAX_CLIENTS"], minimum: 0) {
            configuration.maximumClients = clients == 0 ? nil : clients
        }
        if let seconds = try source.wholeNumber(options.gracefulStopTimeout, flag: "--graceful-stop-timeout",
                                                "GRACEFUL_STOP_TIMEOUT", imgproxy: ["IMGPROXY_GRACEFUL_STOP_TIMEOUT"],
                                                minimum: 0) {
            configuration.gracefulStopTimeout = .seconds(seconds)
        }
    }
}
