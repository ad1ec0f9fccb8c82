import Foundation
import Logging
import WebImage

/// Loads `s3://` and `gs://` sources: each request is turned into a GET of the object at its store's endpoint,
/// signed when it is sent (so a retry is signed afresh, within the store's 15 minutes), and sent by an HTTP loader
/// of its own that reaches the operator's endpoint wherever it is and follows no redirect, since a signed request
/// must never be sent on to another host.
///
/// Registered with the proxy's downloader, which keys, merges, limits and caches the download under the source's
/// own `s3://` URL, as it does an `http` source's.
final class ObjectStoreLoader: ImageLoader {
    private let stores: [String: ObjectStore]
    private let http: HTTPImageLoader

    /// A loader for `stores` (at most one per scheme), or `nil` when there are none. `template` gives the
    /// timeouts, the size limit and the name server of the proxy's own HTTP loader.
    init?(stores: [ObjectStore], template: HTTPImageLoader.Configuration, logger: Logger) {
        guard !stores.isEmpty else { return nil }
        self.stores = Dictionary(stores.map { ($0.scheme, $0) }, uniquingKeysWith: { first, _ in first })
        var configuration = template
        configuration.addressPolicy = .unrestricted
        configuration.hopCheck = { hop in
            hop.index == 0 ? .allow : .refuse("an object store's redirect is not followed")
        }
        http = HTTPImageLoader(configuration: configuration, logger: logger)
    }

    /// Adds a loader for `stores` to `downloader`'s loaders (nothing when there are none), with the timeouts,
    /// the size limit and the name server `download` gives the downloader's own HTTP loader.
    static func register(_ stores: [ObjectStore], on downloader: ImageDownloader,
                         download: ImageDownloaderConfiguration) {
        var template = HTTPImageLoader.Configuration(
            readTimeout: download.readTimeout, connectTimeout: download.connectTimeout,
            maximumDecompressedSize: download.maximumBodySize)
        template.nameServer = download.nameServer
        guard let loader = ObjectStoreLoader(stores: stores, template: template, logger: download.logger) else { return }
        downloader.loaders.add(loader)
    }

    func canLoad(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), stores[scheme] != nil else { return false }
        return url.host?.isEmpty == false
    }

    func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse {
        let outgoing = try signedRequest(request, at: Date())
        var response = try await http.load(outgoing, progress: progress)
        // Callers see the source they asked for, not the endpoint's URL.
        response.metadata.url = request.url
        return response
    }

    /// `request` addressed to the object's HTTP URL, with its `Host` and the signature's headers added.
    func signedRequest(_ request: ImageLoadRequest, at date: Date) throws -> ImageLoadRequest {
        guard let scheme = request.url.scheme?.lowercased(), let store = stores[scheme],
              let object = ObjectStore.Object(request.url), let url = store.httpURL(for: object),
              let host = url.host(percentEncoded: true) else {
            throw ImageError(.invalidURL, "not an object this server reads: \(request.url.absoluteString)")
        }
        var outgoing = request
        outgoing.url = url
        outgoing.maximumRedirects = 0
        outgoing.credentials = nil
        let hostValue = url.port.map { "\(host):\($0)" } ?? host
        outgoing.headers["Host"] = hostValue
        for header in store.signer.signingHeaders(url: url, headers: [("host", hostValue)], date: date) {
            outgoing.headers[header.name] = header.value
        }
        return outgoing
    }
}
