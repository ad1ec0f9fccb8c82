import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// Loads `http` and `https` URLs with AsyncHTTPClient, streaming the body.
///
/// Redirects are followed here rather than inside the client so that credentials and cookies can be checked
/// at every hop: basic-auth credentials and an explicit `Authorization` header go only to the request's own
/// origin. HTTP/2 is used when a TLS server offers it. One client per loader; call ``shutdown()`` when done (a
/// loader that is released without it shuts its client down in the background).
public final class HTTPImageLoader: ImageLoader {
    /// Settings fixed for the loader's client.
    public struct Configuration: Sendable {
        /// The longest wait for the next bytes of a response (the idle or read timeout).
        public var readTimeout: Duration
        /// The longest wait for a connection.
        public var connectTimeout: Duration
        /// Whether gzip and deflate bodies are asked for and decompressed.
        public var decompressesBodies: Bool
        /// The largest decompressed body the client's decompressor produces before failing.
        public var maximumDecompressedSize: Int
        /// How many HTTP/1 connections to one host may be open at once.
        public var maximumConnectionsPerHost: Int
        /// The addresses requests may go to, checked at every hop against the address connected to (default
        /// ``AddressPolicy/unrestricted``; an image server uses ``AddressPolicy/publicOnly``).
        public var addressPolicy: AddressPolicy = .unrestricted
        /// A check of every hop's URL and address, after the ``addressPolicy``; `nil` checks nothing.
        package var hopCheck: HTTPHopCheck?
        /// A DNS server asked for every host instead of the system resolver; `nil` (the default) uses the
        /// system's. For tests (a resolver whose answers they control) and split-horizon setups; see
        /// ``NameServer``.
        package var nameServer: NameServer?
        /// How long a name that did not resolve is remembered as failing (default 5 s), so that a burst of
        /// requests for a dead name costs one lookup; zero asks again every time.
        public var failedLookupLifetime: Duration = .seconds(5)

        /// Creates a configuration (defaults: 15 s read, 10 s connect, decompression on, 100 MB, 16 connections).
        public init(readTimeout: Duration = .seconds(15), connectTimeout: Duration = .seconds(10),
                    decompressesBodies: Bool = true, maximumDecompressedSize: Int = 100 * 1024 * 1024,
                    maximumConnectionsPerHost: Int = 16) {
            self.readTimeout = readTimeout
            self.connectTimeout = connectTimeout
            self.decompressesBodies = decompressesBodies
            self.maximumDecompressedSize = maximumDecompressedSize
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
        }
    }

    /// The loader's settings.
    public let configuration: Configuration
    /// Cookies kept for requests that handle cookies.
    package let cookies: CookieJar
    let client: HTTPClient
    /// The event loops transfers run on, one chosen per host (``eventLoop(for:)``).
    private let loops: [any EventLoop]
    /// Clients connecting a host to one checked address; `nil` when destinations are not checked.
    let pinnedClients: PinnedClients?
    /// Which origins serve byte ranges, for early stops fetched by ranges.
    let originRanges = OriginRanges()
    /// The names this loader resolved itself (when destinations are checked), kept for their time to live.
    let resolvedHosts = ResolvedHosts()
    let logger: Logger
    private let isShutDown = Atomic<Bool>(false)

    /// Creates a loader with its own client.
    public init(configuration: Configuration = Configuration(),
                logger: Logger = Logger(label: "swift-web-image.http")) {
        self.configuration = configuration
        cookies = CookieJar()
        self.logger = logger
        client = Self.makeClient(configuration)
        loops = Array(client.eventLoopGroup.makeIterator())
        let resolvesItself = configuration.addressPolicy.isUnrestricted && configuration.hopCheck == nil
            && configuration.nameServer == nil
        pinnedClients = resolvesItself ? nil : PinnedClients { Self.makeClient(configuration, dnsOverride: $0) }
    }

    private static func makeClient(_ configuration: Configuration, dnsOverride: [String: String] = [:]) -> HTTPClient {
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(configuration.connectTimeout),
                           read: TimeAmount(configuration.readTimeout)),
            connectionPool: .init(idleTimeout: .seconds(60),
                                  concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maximumConnectionsPerHost),
            decompression: configuration.decompressesBodies
                ? .enabled(limit: .size(configuration.maximumDecompressedSize)) : .disabled)
        clientConfiguration.httpVersion = .automatic
        // A failed connection attempt fails the requests waiting for one to that origin at once (a refused
        // connection is known in a millisecond), instead of AsyncHTTPClient trying again with backoff until the
        // connect timeout: the loader's own retry policy decides what is tried again, and how soon.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.dnsOverride = dnsOverride
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    deinit {
        if !isShutDown.load(ordering: .acquiring) {
            _ = client.shutdown()
        }
    }

    /// Closes the client's connections. Loads after this fail with `ImageError.Code.connectionFailed`.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        await pinnedClients?.shutdown()
        try await client.shutdown()
    }

    /// `http` and `https` URLs with a host.
    public func canLoad(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        guard let host = url.host, !host.isEmpty else { return false }
        return true
    }

    public func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws
        -> ImageLoadResponse {
        guard canLoad(request.url) else {
            throw ImageError(.invalidURL, "not an http(s) URL with a host: \(request.url.absoluteString)")
        }
        // The total timeout is the deadline every hop runs under (AsyncHTTPClient fails a transfer at it, on the
        // event loop) and the limit on a name lookup; a timer task beside each load cost 5% of a 320 KB fetch.
        do {
            return try await followRedirects(request, progress: progress)
        } catch {
            let mapped = ImageError.fromTransport(error)
            logger.debug("load failed", metadata: ["url": "\(request.url)", "error": "\(mapped)"])
            throw mapped
        }
    }

    /// Sends the request, following redirects by hand so every hop is checked.
    private func followRedirects(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws
        -> ImageLoadResponse {
        let origin = Origin(request.url)
        let deadline = NIODeadline.now() + TimeAmount(request.timeout)
        var url = request.url
        var visited: Set<String> = [url.absoluteString]
        var redirects = 0
        var rangeStep = firstRangeStep(request, url: url)
        while true {
            let outgoing = try makeClientRequest(request, url: url, sameOrigin: Origin(url) == origin,
                                                 range: rangeStep?.headers ?? [])
            logger.debug("request", metadata: ["url": "\(url)"])
            let step = rangeStep
            let hop = { ResponseCollector(url: url, request: request, progress: progress,
                                          cookies: request.handlesCookies ? self.cookies : nil,
                                          rangeStep: step, originRanges: self.originRanges) }
            let next: URL
            switch try await send(outgoing, url: url, hop: redirects, deadline: deadline, collector: hop) {
            case .response(let response):
                return response
            case .moreRange(let prefix):
                // Without a validator a next range could be bytes of another version: the file is read plainly.
                rangeStep = prefix.validator == nil ? nil : .next(prefix)
                continue
            case .redirect(let target):
                next = target
            }
            redirects += 1
            guard redirects <= request.maximumRedirects else {
                throw ImageError(.invalidDownloadResponse,
                                 "more than \(request.maximumRedirects) redirects, last to \(next.absoluteString)")
            }
            guard visited.insert(next.absoluteString).inserted else {
                throw ImageError(.invalidDownloadResponse, "redirect loop back to \(next.absoluteString)")
            }
            guard canLoad(next) else {
                throw ImageError(.invalidURL, "redirect to a URL that cannot be loaded: \(next.absoluteString)")
            }
            logger.debug("redirect", metadata: ["from": "\(url)", "to": "\(next)"])
            url = next
            rangeStep = firstRangeStep(request, url: url)
        }
    }

    /// Runs one hop on `client`, its response received by `collector` on the event loop; cancelling the calling
    /// task cancels the transfer.
    func exchange(_ request: HTTPClient.Request, on client: HTTPClient, collector: ResponseCollector,
                  deadline: NIODeadline) async throws -> HopOutcome {
        // The collector should run on the loop that reads the connection: with `.indifferent` it ran on any loop,
        // and every body part crossed to it (an eventfd wake-up each). Each host keeps to one loop, preferred for
        // its connections too, so its kept connections are found there and its transfers stay on one warm thread.
        // (`.delegateAndChannel` would insist, and AsyncHTTPClient closes a connection opened for such a request
        // as soon as it is idle: a new connection for every other fetch.)
        let task = client.execute(request: request, delegate: collector,
                                  eventLoop: .delegate(on: eventLoop(for: request.host)),
                                  deadline: deadline, logger: logger)
        do {
            return try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch {
            return try collector.outcome(afterFailure: error)
        }
    }

    /// The loop `host`'s transfers run on: the same one for the life of the process.
    private func eventLoop(for host: String) -> any EventLoop {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: cheap, and stable where `hashValue` is seeded
        for byte in host.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return loops[Int(hash % UInt64(loops.count))]
    }

    /// An early stop is fetched by ranges from an origin known to serve them whose early stops stop early (see
    /// ``OriginRanges``), unless the caller asked for a range of its own (a resumed transfer).
    private func firstRangeStep(_ request: ImageLoadRequest, url: URL) -> RangeStep? {
        guard request.earlyStop != nil, request.headers["Range"] == nil,
              originRanges.fetchesEarlyStopsByRanges(Origin(url)) else { return nil }
        return .first
    }

    private func makeClientRequest(_ request: ImageLoadRequest, url: URL, sameOrigin: Bool,
                                   range: [(String, String)]) throws -> HTTPClient.Request {
        var headers = HTTPHeaders()
        for (name, value) in request.headers {
            let lower = name.lowercased()
            // Credentials and cookies the caller set by hand stay with the origin they were meant for.
            if !sameOrigin && (lower == "authorization" || lower == "cookie") { continue }
            // A range only makes sense on the resource that produced the partial body.
            if !sameOrigin && (lower == "range" || lower == "if-range") { continue }
            headers.add(name: name, value: value)
        }
        if sameOrigin, let credentials = request.credentials, !headers.contains(name: "Authorization") {
            headers.add(name: "Authorization", value: credentials.authorizationHeader)
        }
        if request.handlesCookies, let cookie = cookies.cookieHeader(for: url) {
            headers.replaceOrAdd(name: "Cookie", value: cookie)
        }
        if !range.isEmpty {
            // Ranges count the bytes of the file as stored: an encoded body would count others.
            headers.replaceOrAdd(name: "Accept-Encoding", value: "identity")
            for (name, value) in range { headers.replaceOrAdd(name: name, value: value) }
        } else if configuration.decompressesBodies, !headers.contains(name: "Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        var tls: TLSConfiguration?
        if request.allowsInvalidCertificates {
            tls = TLSConfiguration.makeClientConfiguration()
            tls?.certificateVerification = .none
        }
        do {
            return try HTTPClient.Request(url: Self.requestURLString(url), method: .GET, headers: headers,
                                          tlsConfiguration: tls)
        } catch {
            throw ImageError(.invalidURL, "not a URL the HTTP client can request: \(url.absoluteString)")
        }
    }

    /// Where a redirect response points, or `nil` when `head` is not one.
    static func redirectTarget(of head: HTTPResponseHead, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(Int(head.status.code)),
              let location = head.headers.first(name: "Location"),
              let target = URL(string: location, relativeTo: url)?.absoluteURL else { return nil }
        return target
    }
}

/// Scheme, host and port: what must match for credentials to be sent.
struct Origin: Hashable {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }
}
