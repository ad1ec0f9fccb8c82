/// libFuzzer's entry point for programs that have their own `main` (see LLVM's libFuzzer documentation).
@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer over `testOneInput`. A debug build of an executable target renames `main` to
/// `<Target>_main` (SwiftPM does this so tests can link executables), which libFuzzer's own `main` does not
/// provide: each harness defines that symbol and hands over to the driver here.
public func runFuzzDriver(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return llvmFuzzerRunDriver(&count, &arguments, testOneInput)
}
