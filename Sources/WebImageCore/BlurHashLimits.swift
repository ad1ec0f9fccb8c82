/// BlurHash's bound on components per axis (its size flag holds 1 through 9): here so that the proxy's URL parser,
/// which links no codec, checks `bh:X:Y` by the same number the encoder uses.
package enum BlurHashLimits {
    package static let maximumComponents = 9
}
