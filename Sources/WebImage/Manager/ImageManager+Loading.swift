import Foundation

extension ImageManager {
    /// Loads the plan's URL: through ``ImageDownloader`` when that is the loader (its queue, coalescing,
    /// retries, per-caller hooks), else straight from the loader with the context's hooks applied here.
    /// Progress and (with `progressiveLoad`) previews go to the job's callers.
    func load(_ job: PipelineJob, extraHeaders: HTTPHeaderFields) async throws -> ImageLoadResponse {
        let plan = job.plan
        let previewer = plan.options.contains(.progressiveLoad)
            ? ProgressivePreviewer(options: plan.decodeOptions, coders: plan.coders) : nil
        let progress: ImageLoadProgressHandler = { [weak job] report in
            guard let job else { return }
            job.report(report)
            if let previewer, let data = report.partialData,
               let preview = previewer.preview(from: data) {
                job.report(preview: preview)
            }
        }
        let response: ImageLoadResponse
        if let downloader = plan.loader as? ImageDownloader {
            response = try await download(with: downloader, job: job, extraHeaders: extraHeaders, progress: progress)
        } else {
            response = try await loadDirectly(plan, extraHeaders: extraHeaders, progress: progress)
        }
        metrics.bytesLoaded.increment(by: response.data.count)
        if events.hasListeners { events.emit(.loaded(plan.url, bytes: response.data.count, notModified: false)) }
        return response
    }

    private func download(with downloader: ImageDownloader, job: PipelineJob, extraHeaders: HTTPHeaderFields,
                          progress: @escaping ImageLoadProgressHandler) async throws -> ImageLoadResponse {
        let plan = job.plan
        let context = plan.downloadContext(extraHeaders: extraHeaders)
        let options = plan.options.downloadOptions
        // A caller that joins later with a higher priority joins the transfer again at that priority; the
        // downloader then moves it up its queue.
        let boostOptions = options.subtracting(.progressiveLoad)
        job.setBooster { priority in
            downloader.download(plan.url, options: boostOptions.setting(priority), context: context) { _ in }
        }
        defer { job.setBooster(nil) }
        return try await downloader.download(plan.url, options: options.setting(job.priority), context: context,
                                             progress: progress)
    }

    private func loadDirectly(_ plan: LoadPlan, extraHeaders: HTTPHeaderFields,
                              progress: @escaping ImageLoadProgressHandler) async throws -> ImageLoadResponse {
        let context = plan.context
        var headers = ImageLoadRequest.defaultHeaders
        headers.merge(context.headers)
        headers.merge(extraHeaders)
        var request = ImageLoadRequest(
            url: plan.url, headers: headers, timeout: context.timeout ?? .seconds(15),
            credentials: context.credentials, handlesCookies: plan.options.contains(.handleCookies),
            allowsInvalidCertificates: plan.options.contains(.allowInvalidSSLCertificates),
            wantsPartialData: plan.options.contains(.progressiveLoad), priority: plan.options.priority)
        if let modifier = context.requestModifier {
            guard let modified = modifier(request) else {
                throw ImageError(.cancelled, "the request modifier cancelled the load of \(plan.url.absoluteString)")
            }
            request = modified
        }
        var response: ImageLoadResponse
        do {
            response = try await plan.loader.load(request, progress: progress)
        } catch {
            throw ImageError.fromTransport(error)
        }
        if let modifier = context.responseModifier {
            guard let metadata = modifier(response.metadata) else {
                throw ImageError(.invalidDownloadResponse, "the response modifier rejected the response")
            }
            response.metadata = metadata
        }
        if let decryptor = context.decryptor {
            guard let data = decryptor.decrypt(response.data, response: response.metadata), !data.isEmpty else {
                throw ImageError(.badImageData, "the loaded data could not be decrypted")
            }
            response.data = data
        }
        return response
    }
}

extension DownloadOptions {
    /// These options with their priority flags replaced by `priority`.
    func setting(_ priority: DownloadPriority) -> DownloadOptions {
        var options = subtracting([.lowPriority, .highPriority])
        switch priority {
        case .low: options.insert(.lowPriority)
        case .normal: break
        case .high: options.insert(.highPriority)
        }
        return options
    }
}
