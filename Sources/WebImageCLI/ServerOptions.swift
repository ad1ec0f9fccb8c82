import ArgumentParser

/// `webimage serve`'s flags for its connections and its stop (read by ``ServeSettings/server(_:)``).
struct ServerOptions: ParsableArguments {
    @Option(name: .customLong("max-clients"), help: ArgumentHelp(
        "Connections open at once; more wait in the listen queue until one closes; 0 for no limit (default 2048).",
        valueName: "N"))
    var maxClients: Int?
    @Option(name: .customLong("graceful-stop-timeout"), help: ArgumentHelp(
        "Seconds requests in flight at SIGTERM or SIGINT have to finish before the server stops anyway (default twice --request-timeout).",
        valueName: "SECONDS"))
    var gracefulStopTimeout: Int?
}
