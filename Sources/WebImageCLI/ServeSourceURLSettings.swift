import Foundation
import WebImageServer

extension ServeSettings {
    /// Where source URLs lead: `--local-root` (`IMGPROXY_LOCAL_FILESYSTEM_ROOT`), `--url-replacement`
    /// (`IMGPROXY_URL_REPLACEMENTS`) and `--base-url` (`IMGPROXY_BASE_URL`). An empty value is no value, as in
    /// imgproxy.
    func sourceURLs(_ configuration: inout ProxyConfiguration) throws {
        let options = command.sourceURLOptions
        if let root = source.text(options.localRoot, flag: "--local-root", "LOCAL_ROOT",
                                  imgproxy: ["IMGPROXY_LOCAL_FILESYSTEM_ROOT"]),
           !root.text.isEmpty {
            // As imgproxy: a folder that is not there stops the start, rather than every local source failing.
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.text, isDirectory: &isFolder), isFolder.boolValue else {
                throw ServeError("\(root.origin) \(root.text): not a folder")
            }
            if URL(fileURLWithPath: root.text).standardizedFileURL.path == "/" {
                source.warn("warning: \(root.origin) is /: every file the server can read is a source")
            }
            configuration.localFilesystemRoot = root.text
        }
        if let base = source.text(options.baseURL, flag: "--base-url", "BASE_URL", imgproxy: ["IMGPROXY_BASE_URL"]) {
            configuration.sourceURLRewriting.baseURL = base.text
        }
        let variable = source.find("URL_REPLACEMENT", imgproxy: ["IMGPROXY_URL_REPLACEMENTS"])
        do {
            if !options.urlReplacement.isEmpty {
                configuration.sourceURLRewriting.replacements = try options.urlReplacement.map {
                    try SourceURLReplacement.pair($0)
                }
            } else if let variable, !variable.text.isEmpty {
                configuration.sourceURLRewriting.replacements = try SourceURLReplacement.list(variable.text)
            }
        } catch {
            let origin = options.urlReplacement.isEmpty ? variable?.origin ?? "" : "--url-replacement"
            throw ServeError("\(origin): \(error)")
        }
    }
}
