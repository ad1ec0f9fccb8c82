import ArgumentParser

/// `webimage serve`'s flags for where source URLs lead (read by ``ServeSettings/sourceURLs(_:)``).
struct ServeSourceURLOptions: ParsableArguments {
    @Option(name: .customLong("local-root"), help: ArgumentHelp(
        "Serve local:///PATH sources from files under this folder, and nothing outside it (default: local:// sources are refused).",
        valueName: "DIR"))
    var localRoot: String?
    @Option(name: .customLong("base-url"), help: ArgumentHelp(
        "Put this in front of every source URL that does not already start with it, after the URL replacements.",
        valueName: "URL"))
    var baseURL: String?
    @Option(name: .customLong("url-replacement"), help: ArgumentHelp(
        "Replace a source URL's start matching PATTERN (* is any characters but /) with REPLACEMENT (${N} is the N-th *'s match); repeatable, applied in order; the variable takes PATTERN=REPLACEMENT pairs divided by ;.",
        valueName: "PATTERN=REPLACEMENT"))
    var urlReplacement: [String] = []
}
