import Foundation
import WebImage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The helper's side of decoder isolation: what runs inside each child of a ``DecodeHelperPool``.
///
/// It reads requests from standard input, decodes each with the registered coders in this process and writes
/// the answer to standard output, until standard input ends. A decoder that crashes or runs away takes only this
/// process with it; the parent answers that request with an error and starts another helper.
public enum DecodeHelper {
    /// Serves requests until standard input closes, then returns.
    /// - Parameters:
    ///   - coders: the coders that decode in this process.
    ///   - memoryLimitBytes: the address space this process may use (`RLIMIT_AS`), set before the first decode:
    ///     a decoder that asks for more gets a failed allocation instead of the machine's memory.
    ///   - hangMarker: for tests only: a source containing these bytes makes the helper stop answering, as a
    ///     decoder stuck in a loop would (nothing real hangs on demand). `nil` outside tests.
    public static func serve(coders: ImageCoders, memoryLimitBytes: Int?, hangMarker: Data? = nil) throws {
        // A crash here is expected of hostile input: no core file for each one.
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        #if os(Linux)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
        #else
        _ = setrlimit(RLIMIT_CORE, &noCore)
        #endif
        keepBelowParentPriority()
        if let memoryLimitBytes, !runsUnderASanitizer {
            var limit = rlimit(rlim_cur: rlim_t(memoryLimitBytes), rlim_max: rlim_t(memoryLimitBytes))
            #if os(Linux)
            let resource = __rlimit_resource_t(RLIMIT_AS.rawValue)
            #else
            let resource = RLIMIT_AS
            #endif
            guard setrlimit(resource, &limit) == 0 else {
                throw HelperProtocolError("setrlimit(RLIMIT_AS) failed: errno \(errno)")
            }
        }
        // Answers get a descriptor of their own, and standard output becomes standard error: whatever a library
        // prints cannot corrupt the answers.
        let answers = dup(STDOUT_FILENO)
        _ = dup2(STDERR_FILENO, STDOUT_FILENO)
        while let (request, source) = try nextRequest() {
            if let hangMarker, !hangMarker.isEmpty, source.range(of: hangMarker) != nil {
                while true { _ = sleep(3600) }
            }
            switch request {
            case .decode, .properties:
                try answer(request, source: source, coders: coders, to: answers)
            case .plan:
                // The properties, then the parent's decision about the same source, which stays here.
                guard try answer(.properties, source: source, coders: coders, to: answers) else { continue }
                guard let (decision, extra) = try nextRequest() else { return }
                switch decision {
                case .decode where extra.isEmpty:
                    try answer(decision, source: source, coders: coders, to: answers)
                case .abandon where extra.isEmpty:
                    continue
                default:
                    throw HelperProtocolError("a plan was followed by \(decision) with \(extra.count) bytes")
                }
            case .abandon:
                throw HelperProtocolError("an abandon without a plan")
            }
        }
    }

    /// The next request and its source from standard input; `nil` once the parent closed it.
    private static func nextRequest() throws -> (HelperWireFormat.Request, Data)? {
        do {
            let header = try PipeIO.readHeader(STDIN_FILENO, maximum: HelperWireFormat.maximumHeaderBytes,
                                               deadline: nil)
            let (request, byteCount) = try HelperWireFormat.decodeRequest(header)
            guard byteCount >= 0 else { throw HelperProtocolError("a source of \(byteCount) bytes") }
            return (request, try PipeIO.readExactly(STDIN_FILENO, count: byteCount, deadline: nil))
        } catch PipeIO.Failure.closed {
            return nil
        }
    }

    /// Decodes first and writes after, so that a failure is always one whole answer and never follows half an image.
    /// Returns whether the answer was the one asked for (not a failure).
    @discardableResult
    private static func answer(_ request: HelperWireFormat.Request, source: Data, coders: ImageCoders,
                               to output: Int32) throws -> Bool {
        let header: Data, frames: [ImageFrame], answered: Bool
        do {
            switch request {
            case .decode(let options):
                let image = try coders.decode(source, options: options)
                header = HelperWireFormat.encode(.image(.init(of: image)))
                frames = image.frames
            case .properties:
                header = HelperWireFormat.encode(.properties(try coders.properties(of: source)))
                frames = []
            case .plan, .abandon:
                throw HelperProtocolError("\(request) is not answered on its own")
            }
            answered = true
        } catch let error as HelperProtocolError {
            throw error
        } catch {
            let failure = error as? ImageError ?? ImageError(.badImageData, "\(error)")
            header = HelperWireFormat.encode(.failure(failure.code, failure.message))
            frames = []
            answered = false
        }
        try PipeIO.writeAll(output, header, deadline: nil)
        for frame in frames {
            if let deep = frame.deepPixels {
                try deep.withUnsafeSamples { try PipeIO.writeAll(output, UnsafeRawBufferPointer($0), deadline: nil) }
            } else {
                try frame.pixels.withUnsafeBytes { bytes throws(PipeIO.Failure) in
                    try PipeIO.writeAll(output, bytes, deadline: nil)
                }
            }
        }
        return answered
    }

    /// AddressSanitizer and ThreadSanitizer reserve terabytes of address space for their shadow memory, so an
    /// address-space limit would stop every allocation of a sanitized helper (the test suite's sanitizer runs).
    private static var runsUnderASanitizer: Bool {
        let everywhere = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
        return dlsym(everywhere, "__asan_init") != nil || dlsym(everywhere, "__tsan_init") != nil
    }

    /// Takes the parent's nice value when this process has a lower one (a higher priority). A helper is started
    /// from whichever thread replaces a dead one, and a child inherits that thread's nice value: a dispatch thread
    /// of a high quality of service runs below the server's, so a replacement helper decoding hostile bytes would
    /// otherwise outrank the server that serves every other request. On Linux a process's value is its first
    /// thread's, which is the server's own.
    private static func keepBelowParentPriority() {
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        #else
        let which = PRIO_PROCESS
        #endif
        errno = 0
        let parent = getpriority(which, id_t(getppid()))
        guard errno == 0 else { return }
        if getpriority(which, 0) < parent { _ = setpriority(which, 0, parent) }
    }
}
