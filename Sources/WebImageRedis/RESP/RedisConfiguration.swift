import Foundation

/// Where a Redis server is and how to talk to it, usually from a URL:
/// `redis://[[user]:password@]host[:port][/db]`, or `rediss://…[?cacert=/path/to/ca.pem]` for TLS.
public struct RedisConfiguration: Sendable, Equatable {
    public var host: String
    /// Default 6379.
    public var port: Int
    /// `nil` uses the default user (`AUTH password`); set with ACL users (`AUTH user password`).
    public var user: String?
    public var password: String?
    /// The logical database (`SELECT`); default 0.
    public var database: Int
    /// Whether the connection is TLS (`rediss://`), verified against the system's trust store.
    public var usesTLS: Bool
    /// A PEM file of the certificates to trust for TLS instead of the system's: a private CA, or the server's own
    /// self-signed certificate (`redis-cli --cacert`). The server's name or address is checked against it either
    /// way.
    public var trustedCertificatesFile: String?
    /// Connections kept open; commands are pipelined on each. Default 4: Redis executes one command at a time,
    /// so more connections only add sockets.
    public var poolSize: Int
    /// How long making a connection (TCP, TLS, `HELLO`) may take. Default 1 s.
    public var connectTimeout: Duration
    /// How long a command may wait for its answer. Default 500 ms: a cache that answers later than the origin
    /// would is no cache.
    public var commandTimeout: Duration

    /// A configuration for `host:port`, with the defaults above.
    public init(host: String = "127.0.0.1", port: Int = 6379, user: String? = nil, password: String? = nil,
                database: Int = 0, usesTLS: Bool = false) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.usesTLS = usesTLS
        poolSize = 4
        connectTimeout = .seconds(1)
        commandTimeout = .milliseconds(500)
    }

    /// Parses `redis://[[user]:password@]host[:port][/db]` or `rediss://…`; user and password are
    /// percent-decoded. Throws ``RedisError/invalidURL(_:)`` for anything else.
    public init(url text: String) throws(RedisError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .invalidURL(text)
        }
        guard scheme == "redis" || scheme == "rediss" else {
            throw .invalidURL("\(scheme):// is not redis:// or rediss://")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL("\(text) names no host") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var database = 0
        if !path.isEmpty {
            guard let number = Int(path), number >= 0 else { throw .invalidURL("database \"\(path)\" is not a number") }
            database = number
        }
        if let port = components.port, !(1...65535).contains(port) { throw .invalidURL("port \(port)") }
        var trusted: String?
        for item in components.queryItems ?? [] {
            guard item.name == "cacert", let value = item.value, !value.isEmpty else {
                throw .invalidURL("unknown parameter \(item.name)")
            }
            guard scheme == "rediss" else { throw .invalidURL("cacert is for rediss:// URLs") }
            trusted = value
        }
        let user = components.percentEncodedUser?.removingPercentEncoding
        self.init(host: host, port: components.port ?? 6379, user: user?.isEmpty == true ? nil : user,
                  password: components.percentEncodedPassword?.removingPercentEncoding, database: database,
                  usesTLS: scheme == "rediss")
        trustedCertificatesFile = trusted
    }

    /// The URL without its password, for logs and `/health`.
    public var redactedURL: String {
        let credentials = password == nil ? (user.map { "\($0)@" } ?? "") : "\(user ?? ""):***@"
        return "\(usesTLS ? "rediss" : "redis")://\(credentials)\(host):\(port)/\(database)"
    }
}
