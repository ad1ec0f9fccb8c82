/// This package's version, the one CHANGELOG.md's newest entry names: sent in the default `User-Agent`, printed
/// by `webimage --version`, and what imgproxy's `%current_version` becomes in the proxy's `User-Agent`.
package enum LibraryVersion {
    package static let current = "1.0.0"
}
