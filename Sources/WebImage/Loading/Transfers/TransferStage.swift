import Foundation

/// The one stage every load of bytes passes, whoever asks: a manager's load, a direct download, the proxy's fetch
/// of a source. Equal transfers are merged into one however many callers wait, a bounded number run at once (and
/// per origin) in the order of their callers' highest priority, and each caller then applies its own response
/// hooks to the shared response (``TransferHooks``).
///
/// A downloader owns one, and every manager given that downloader loads through the same one: one limit and one
/// merge for all of them. A manager given a bare loader makes a private one. Nuke's data-loading task pool is the
/// model: a stage is a pool of shared tasks keyed by what makes their bytes equal, in front of a line of slots.
final class TransferStage: Sendable {
    /// What makes two transfers one: the request as sent (``ImageLoadKey``) and what sends it.
    struct Key: Hashable, Sendable {
        let request: ImageLoadKey
        let transport: PartIdentity
    }

    typealias Transfer = SharedTask<ImageLoadResponse, ImageLoadProgress>

    /// Running transfers by key.
    let transfers = TaskPool<Key, ImageLoadResponse, ImageLoadProgress>()
    /// The slots transfers wait for.
    let slots: PrioritySlots
    /// What requests go through unless a caller names another transport.
    let transport: any Transport
    /// The request defaults (headers, timeouts, limits, request modifier) and the hooks callers fall back on.
    let defaults: ImageDownloaderConfiguration

    init(transport: any Transport, defaults: ImageDownloaderConfiguration, slots: PrioritySlots) {
        self.transport = transport
        self.defaults = defaults
        self.slots = slots
    }

    /// The hooks a caller's own replace: each response passes one response modifier and one decryptor, once.
    func hooks(responseModifier: DownloadResponseModifier?, decryptor: DownloadDecryptor?) -> TransferHooks {
        TransferHooks(responseModifier: responseModifier ?? defaults.responseModifier,
                      decryptor: decryptor ?? defaults.decryptor)
    }

    /// The request this stage sends for `url` (``ImageDownloaderConfiguration/request(for:options:context:)``
    /// with its defaults), refused with `ImageError.Code.invalidURL` when `transport` handles neither the URL
    /// asked for nor the one the request modifier made of it.
    func makeRequest(for url: URL, options: DownloadOptions, context: DownloadContext,
                     via transport: (any Transport)? = nil) throws -> ImageLoadRequest {
        let transport = transport ?? self.transport
        guard transport.canLoad(url) else { throw ImageError(.invalidURL, "no loader handles \(url.absoluteString)") }
        let request = try defaults.request(for: url, options: options, context: context)
        guard transport.canLoad(request.url) else {
            throw ImageError(.invalidURL, "no loader handles \(request.url.absoluteString)")
        }
        return request
    }

    /// Subscribes to the transfer of `request` (joining an equal one that runs): the callback form, for callers
    /// outside any stage. A new transfer takes its place in line now, in the order callers asked.
    func subscribe(_ request: ImageLoadRequest, retries: Bool, via transport: (any Transport)? = nil,
                   onUpdate: @escaping @Sendable (ImageLoadProgress) -> Void,
                   onCompletion: @escaping @Sendable (Result<ImageLoadResponse, ImageError>) -> Void)
        -> (subscription: SharedTaskSubscription, joined: Bool) {
        let job = job(for: request, retries: retries, via: transport ?? self.transport)
        let (subscription, joined) = transfers.subscribe(job.key, priority: request.priority, onUpdate: onUpdate,
                                                         onCompletion: onCompletion, work: job.work)
        if !joined { slots.reserve(job.place, priority: request.priority) }
        return (subscription, joined)
    }

    /// The response to `request` for `dependent`, a task of the stage above (a manager's decode), whose priority
    /// the transfer follows up and down while it waits.
    func response<Value, Update>(to request: ImageLoadRequest, retries: Bool, via transport: (any Transport)? = nil,
                                 for dependent: SharedTask<Value, Update>,
                                 onUpdate: @escaping @Sendable (ImageLoadProgress) -> Void) async throws
        -> ImageLoadResponse {
        let job = job(for: request, retries: retries, via: transport ?? self.transport)
        return try await dependent.dependency(on: transfers, key: job.key, onUpdate: onUpdate, work: job.work)
    }

    /// The response that serves `request`: `join`'s, or, when the transfer joined was shared with a caller whose
    /// early stop needed less and ended before what `request`'s own rule reads, the whole file through `join`.
    static func complete(_ request: ImageLoadRequest,
                         join: (ImageLoadRequest) async throws -> ImageLoadResponse) async throws -> ImageLoadResponse {
        let response = try await join(request)
        guard response.isPrefix, let rule = request.earlyStop, !rule.isSatisfied(by: response.data) else {
            return response
        }
        var whole = request
        whole.earlyStop = nil
        return try await join(whole)
    }

    /// The key of the transfer of `request` through `transport`: equal keys are one transfer.
    static func key(for request: ImageLoadRequest, retries: Bool, via transport: any Transport) -> Key {
        Key(request: ImageLoadKey(request, retries: retries), transport: transport.identity)
    }

    /// The key and the work of one shared transfer. Every transfer collects partial data, so that a caller who
    /// wants it can join one that did not ask; callers who did not ask never see it.
    private func job(for request: ImageLoadRequest, retries: Bool, via transport: any Transport)
        -> (key: Key, place: PrioritySlots.Place, work: Transfer.Work) {
        let shared = {
            var shared = request
            shared.wantsPartialData = true
            return shared
        }()
        let place = PrioritySlots.Place(group: Self.origin(of: request.url))
        let key = Self.key(for: request, retries: retries, via: transport)
        return (key, place, { [slots] transfer in
            try await slots.run(in: place, for: transfer) {
                do {
                    return try await transport.transfer(shared, retries: retries) { transfer.report($0) }
                } catch {
                    throw ImageError.fromTransport(error)
                }
            }
        })
    }

    /// The origin whose share of the slots a transfer of `url` counts against: scheme, host and port (the
    /// scheme's default when none is given), as the URL names it before any redirect. `nil` for URLs without a
    /// host (`file:`, `data:`), which no origin's bound concerns.
    static func origin(of url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        let origin = Origin(url)
        return "\(origin.scheme)://\(origin.host):\(origin.port)"
    }
}
