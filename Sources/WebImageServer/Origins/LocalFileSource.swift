import Foundation
import WebImage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `local:///path/to/image.png` sources: files under one folder (imgproxy's `IMGPROXY_LOCAL_FILESYSTEM_ROOT`), and
/// never a byte from outside it.
///
/// A source's path is read as imgproxy reads it: as written after the source's own decoding (no second
/// percent-decoding, so `%2e%2e` is a file of that name), without a host (`local://x/a.png` is `/a.png`), cut at
/// the first `?`, with `.` and `..` segments resolved inside the root (`/../a.png` is the root's `a.png`, as Go's
/// `http.Dir` cleans it). Then the file is resolved, symbolic links included, and must still lie under the root's
/// own resolved path: imgproxy follows a link anywhere, which would let whoever can place a link in the root
/// publish any file the server can read. A NUL byte, a path outside, a directory or a missing file are 404.
///
/// Files are read on the library's I/O lanes, never on the cooperative pool's few threads, and no further than
/// the source byte limit. A file's modification time is its `Last-Modified`.
struct LocalFileSource: Sendable {
    /// The folder as configured.
    let root: String
    /// The most bytes a source may have (``ProxyConfiguration/maximumSourceBytes``); more is a 422, as for HTTP.
    let maximumBytes: Int

    /// The canonical URL of a local source: `local:///` and its cleaned path, each segment percent-encoded.
    private static let prefix = "local:///"
    /// What a path segment keeps unencoded in the canonical URL: RFC 3986's `pchar` without `%`.
    private static let segmentCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@")

    /// Whether `source` names a local file (its scheme is `local`, in any case).
    static func isLocal(_ source: String) -> Bool {
        source.utf8.count >= 6 && source.prefix(6).lowercased() == "local:"
    }

    /// The canonical URL for `source`, checked against `allowedPrefixes` (local prefixes are compared in the same
    /// canonical form); `nil` when `source` is not a `local:` URL.
    /// - Throws: ``ProxyError`` 404 when it names no file under the root, or is outside every allowed prefix.
    func url(for source: String, allowedPrefixes: [String]) throws(ProxyError) -> URL? {
        guard Self.isLocal(source) else { return nil }
        guard let segments = Self.segments(of: source), !segments.isEmpty else {
            throw .invalidURL("the local source \"\(source.prefix(80))\" names no file")
        }
        let text = Self.canonical(segments)
        if !allowedPrefixes.isEmpty, !allowedPrefixes.contains(where: { Self.starts(text, with: $0) }) {
            throw .sourceNotAllowed("the source is not under an allowed prefix")
        }
        guard let url = URL(string: text) else {
            throw .invalidURL("the local source \"\(source.prefix(80))\" cannot be written as a URL")
        }
        return url
    }

    /// The bytes of the file a canonical URL (``url(for:allowedPrefixes:)``) names, read on an I/O lane.
    /// - Throws: ``ProxyError`` 404 for a file that is missing, not a regular file or outside the root;
    ///   ``ImageError`` `responseTooLarge` (422) over the byte limit, `io` (500) when it cannot be read.
    func contents(of url: URL) async throws -> (data: Data, lastModified: String) {
        let text = url.absoluteString
        guard text.hasPrefix(Self.prefix),
              let relative = String(text.dropFirst(Self.prefix.count)).removingPercentEncoding else {
            throw ProxyError.invalidURL("not a local source URL: \(text.prefix(80))")
        }
        let root = root, maximumBytes = maximumBytes
        return try await IOExecutor.shared.run(lane: text.hashValue) {
            try Self.readFile(relative, root: root, maximumBytes: maximumBytes)
        }
    }

    /// The path segments of a `local:` URL after `.` and `..` are resolved within the root; `nil` for a path with
    /// a NUL byte or without a leading `/` (`local:a.png` names nothing).
    static func segments(of source: String) -> [Substring]? {
        var rest = Substring(source).dropFirst(6)
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            rest = rest[(rest.firstIndex(of: "/") ?? rest.endIndex)...]  // the host names nothing
        }
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        guard rest.first == "/", !rest.utf8.contains(0) else { return nil }
        var segments: [Substring] = []
        for segment in rest.split(separator: "/") where segment != "." {
            if segment == ".." {
                _ = segments.popLast()  // at the root, `..` stays there
            } else {
                segments.append(segment)
            }
        }
        return segments
    }

    /// `local:///` and `segments`, each percent-encoded.
    private static func canonical(_ segments: [Substring]) -> String {
        prefix + segments.map { $0.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? "" }
            .joined(separator: "/")
    }

    /// Whether canonical `text` starts with `prefix`: a `local:` prefix in its canonical form (a trailing `/`
    /// kept, so `local:///images/` does not allow `/images2/`), any other as written.
    private static func starts(_ text: String, with prefix: String) -> Bool {
        var form = prefix
        if isLocal(prefix), let segments = segments(of: prefix) {
            form = canonical(segments)
            if prefix.hasSuffix("/"), !form.hasSuffix("/") { form += "/" }
        } else if isLocal(prefix) {
            form = "local:" + prefix.dropFirst(6)
        }
        return text.utf8.starts(with: form.utf8)
    }

    /// Reads `relative` under `root`, blocking: the caller is on an I/O lane.
    private static func readFile(_ relative: String, root: String, maximumBytes: Int) throws -> (Data, String) {
        guard let realRoot = resolved(root) else {
            throw ImageError(.io, "the local source folder \(root) cannot be resolved")
        }
        guard let path = resolved(realRoot + "/" + relative) else {
            throw ProxyError(status: 404, "the source was not found: no file \(relative.prefix(200))")
        }
        guard path == realRoot || path.hasPrefix(realRoot == "/" ? "/" : realRoot + "/") else {
            throw ProxyError.sourceNotAllowed("the local source leads outside the local root")
        }
        // Not following a link here as well: a link put in place of the resolved file since is not read.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw ProxyError(status: 404, "the source was not found: \(relative.prefix(200)) cannot be opened")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw ProxyError(status: 404, "the source was not found: \(relative.prefix(200)) is not a file")
        }
        guard Int(status.st_size) <= maximumBytes else {
            throw ImageError(.responseTooLarge, "the file has \(status.st_size) bytes, over \(maximumBytes)")
        }
        let data = try readAll(descriptor, expected: Int(status.st_size), maximumBytes: maximumBytes)
        #if canImport(Darwin)
        let modified = Double(status.st_mtimespec.tv_sec)
        #else
        let modified = Double(status.st_mtim.tv_sec)
        #endif
        return (data, HTTPDate.string(secondsSince1970: modified))
    }

    /// The file's bytes to its end, which may have moved since it was measured: never more than `maximumBytes`.
    private static func readAll(_ descriptor: Int32, expected: Int, maximumBytes: Int) throws -> Data {
        var data = Data(count: min(expected, maximumBytes) + 1)
        var count = 0
        while true {
            if count == data.count {
                guard count <= maximumBytes else {
                    throw ImageError(.responseTooLarge, "the file grew over \(maximumBytes) bytes while read")
                }
                data.count = min(data.count * 2, maximumBytes + 1)
            }
            let received = data.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if received == 0 { break }
            guard received > 0 else {
                if errno == EINTR { continue }
                throw ImageError(.io, "cannot read a local source: errno \(errno)")
            }
            count += received
        }
        data.count = count
        return data
    }

    /// `path` with every symbolic link, `.` and `..` resolved, or `nil` when some part of it does not exist.
    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
