import CLibFuzzer

/// Why a harness program could not fuzz.
public enum FuzzDriverError: Error, CustomStringConvertible {
    /// The program was built without libFuzzer's runtime (by `swift test`, not by `scripts/fuzz`).
    case libFuzzerNotLinked

    public var description: String {
        switch self {
        case .libFuzzerNotLinked: "this build has no libFuzzer runtime: build and run the harnesses with scripts/fuzz"
        }
    }
}

/// Runs libFuzzer over `testOneInput` with the program's own arguments, and returns libFuzzer's exit status.
public func runFuzzDriver(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) throws -> CInt {
    var count = CommandLine.argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = clibfuzzer_run(&count, &arguments, testOneInput)
    if status == -1 { throw FuzzDriverError.libFuzzerNotLinked }
    return status
}
