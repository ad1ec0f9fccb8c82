import Foundation
import WebImage
import WebImageCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a helper can no longer be used: it died, stopped answering or wrote something that is not an answer.
/// The pool replaces it and the request fails with a typed ``ImageError``.
struct HelperFailure: Error, CustomStringConvertible {
    enum Kind { case died, timedOut, unreadable, notStarted }
    let kind: Kind
    let description: String
}

/// One running helper process: its pid and the parent's ends of its standard input and output. Used by one
/// request at a time (the pool hands it out); every property is fixed at start.
final class DecodeHelperProcess: Sendable {
    /// What an exchange produced.
    enum Outcome {
        case image(Image)
        case properties(ImageProperties)
        /// The decoder's own refusal: the helper is fine and stays in the pool.
        case refused(ImageError)
        /// What the plan of a planned decode threw: nothing was decoded, the helper is fine.
        case planRefused(any Error)
    }

    let pid: pid_t
    /// The parent writes requests here (the helper's standard input); non-blocking, so writes keep the deadline.
    private let requests: Int32
    /// The parent reads answers here (the helper's standard output).
    private let answers: Int32

    /// Starts `executable arguments`, its standard error shared with this process's.
    init(executable: String, arguments: [String]) throws(HelperFailure) {
        (pid, requests, answers) = try Self.spawning.withLock {
            (started: inout Int) throws(HelperFailure) -> (pid: pid_t, requests: Int32, answers: Int32) in
            let helper = try Self.spawn(executable: executable, arguments: arguments)
            started += 1
            return helper
        }
        _ = fcntl(requests, F_SETFL, fcntl(requests, F_GETFL) | O_NONBLOCK)
    }

    /// Held from making a helper's pipes to starting it: no other helper may be started in between and inherit
    /// them before they are marked close-on-exec (one helper holding another's pipe open would hide its death).
    /// The value counts the helpers started; it is not `Void` because ThreadSanitizer reports a zero-sized value's
    /// accesses as races on the lock object itself.
    private static let spawning = Locked(0)

    private static func spawn(executable: String, arguments: [String]) throws(HelperFailure)
        -> (pid: pid_t, requests: Int32, answers: Int32)
    {
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&output) == 0 else {
            [input[0], input[1], output[0], output[1]].filter { $0 >= 0 }.forEach { _ = close($0) }
            throw HelperFailure(kind: .notStarted, description: "pipe() failed: errno \(errno)")
        }
        for end in input + output { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        #if os(Linux)
        // Pixels come back through this pipe: 1 MB at a time instead of 64 KB wakes each side 16 times less often.
        // (F_SETPIPE_SZ, not exported to Swift; an unprivileged process may raise a pipe up to 1 MB by default, and
        // a refusal leaves the default size.)
        _ = fcntl(output[0], 1031, Int32(1 << 20))
        #endif
        // Without Swift's crash backtracer: a crash is an expected answer to hostile input, its cause is logged
        // in one line by the pool, and a symbolicated backtrace per request would flood the log and delay the
        // helper's death.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let pid: pid_t
        do {
            pid = try ChildProcessSpawn.spawn(executable, arguments: arguments, environment: environment,
                                              redirections: [(STDIN_FILENO, .duplicate(input[0])),
                                                             (STDOUT_FILENO, .duplicate(output[1]))])
        } catch {
            for end in input + output { close(end) }
            throw HelperFailure(kind: .notStarted, description: "cannot start \(executable): errno \(error.errno)")
        }
        // The child has its own copies of these ends.
        close(input[0])
        close(output[1])
        return (pid, input[1], output[0])
    }

    /// Sends one request and reads its answer before `deadline`. Throws ``HelperFailure`` when the helper must be
    /// replaced.
    func exchange(_ request: HelperWireFormat.Request, source: Data,
                  deadline: ContinuousClock.Instant) throws(HelperFailure) -> Outcome {
        try send(request, source: source, deadline: deadline)
        return try readAnswer(deadline: deadline)
    }

    /// Sends `source` once for its properties, asks `plan` for the decode options they call for, and has the
    /// helper decode the source it kept with them: one exchange, whatever `plan` decides (an abandon when it
    /// throws, and the helper stays usable).
    func exchange(planning plan: (ImageProperties) throws -> DecodeOptions, source: Data,
                  deadline: ContinuousClock.Instant) throws(HelperFailure) -> Outcome {
        let properties: ImageProperties
        switch try exchange(.plan, source: source, deadline: deadline) {
        case .properties(let read): properties = read
        case .refused(let error): return .refused(error)
        case .image, .planRefused: throw HelperFailure(kind: .unreadable, description: "a plan answered with pixels")
        }
        let options: DecodeOptions
        do {
            options = try plan(properties)
        } catch {
            try send(.abandon, source: Data(), deadline: deadline)
            return .planRefused(error)
        }
        let outcome = try exchange(.decode(options), source: Data(), deadline: deadline)
        if case .properties = outcome {
            throw HelperFailure(kind: .unreadable, description: "a planned decode answered with properties")
        }
        return outcome
    }

    private func send(_ request: HelperWireFormat.Request, source: Data,
                      deadline: ContinuousClock.Instant) throws(HelperFailure) {
        do {
            try PipeIO.writeAll(requests, HelperWireFormat.encode(request, sourceByteCount: source.count),
                                deadline: deadline)
            try PipeIO.writeAll(requests, source, deadline: deadline)
        } catch {
            throw Self.failure(error)
        }
    }

    /// The helper's next answer, its pixels read straight into their buffers.
    private func readAnswer(deadline: ContinuousClock.Instant) throws(HelperFailure) -> Outcome {
        do {
            let header = try PipeIO.readHeader(answers, maximum: HelperWireFormat.maximumHeaderBytes,
                                               deadline: deadline)
            switch try HelperWireFormat.decodeAnswer(header) {
            case .properties(let properties):
                return .properties(properties)
            case .failure(let code, let message):
                return .refused(ImageError(code, message))
            case .image(let description):
                let frames = try description.frameSizes.indices.map { index in
                    let size = description.frameSizes[index], duration = description.durations[index]
                    let bits = description.deepBits[index]
                    guard bits == 0 else {
                        let deep = try DeepPixelBuffer(width: size.width, height: size.height,
                                                       significantBits: bits) { samples in
                            try PipeIO.readAll(answers, into: UnsafeMutableRawBufferPointer(samples),
                                               deadline: deadline)
                        }
                        return try ImageFrame(deep: deep, duration: duration)
                    }
                    let pixels = try PixelBuffer(width: size.width, height: size.height) { buffer in
                        try PipeIO.readAll(answers, into: buffer, deadline: deadline)
                    }
                    return ImageFrame(pixels: pixels, duration: duration)
                }
                var image = Image(frames: frames, loopCount: description.loopCount, format: description.format,
                                  scale: description.scale, orientation: description.orientation,
                                  flags: description.flags)
                image.colorProfile = description.colorProfile
                image.metadata = description.metadata
                return .image(image)
            }
        } catch {
            throw Self.failure(error)
        }
    }

    /// What a failed read or write says about the helper.
    private static func failure(_ error: any Error) -> HelperFailure {
        switch error {
        case PipeIO.Failure.deadline: HelperFailure(kind: .timedOut, description: "no answer in time")
        case PipeIO.Failure.closed: HelperFailure(kind: .died, description: "the helper closed its pipes")
        // A frame that cannot be allocated here leaves its pixels in the pipe: the helper is out of step.
        default: HelperFailure(kind: .unreadable, description: "\(error)")
        }
    }

    /// Whether the helper ended while it had no request (the kernel's OOM killer, a signal from outside): its
    /// output then reads as closed. A helper waiting for a request has written nothing, so nothing else is ready.
    var endedWhileIdle: Bool {
        var descriptor = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) != 0
    }

    /// Kills the helper (if it still runs), reaps it and closes the pipes. Returns how it ended, for logs and
    /// error messages: "killed by signal 11", "exited with status 1".
    @discardableResult
    func stop() -> String {
        _ = kill(pid, SIGKILL)
        close(requests)
        close(answers)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let signal = status & 0x7f
        return signal != 0 ? "killed by signal \(signal)" : "exited with status \((status >> 8) & 0xff)"
    }
}
