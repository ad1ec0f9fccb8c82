import ArgumentParser

/// `webimage`: the library's front door on the command line. See DESIGN.md for the contract.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Decode, inspect, convert and transform images with swift-web-image.",
        discussion: "Errors go to stderr, one line each; the exit status is 0 only when everything asked for succeeded.",
        subcommands: [InfoCommand.self, ConvertCommand.self]
    )
}
