/// libFuzzer entry point for the protocol's line decoders (`scripts/fuzz protocol SECONDS`): a
/// request line (daemon side) and a daemon line (client side) from any bytes must decode or give a
/// typed error, never crash, hang or leak, and no message may quote more than an excerpt. A line
/// the `mount` skimmer takes (`MountLineHeader.find`, the loop's half) must get from the worker's
/// half (`MountRequest.decode`) exactly the whole decode's answer: the same request, or the same
/// error with the same code, message and seq.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtocol(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let line = UnsafeBufferPointer(start: bytes, count: count)
    let whole = RequestDecoder.decode(line: line)
    switch whole {
    case .request(let request):
        // What was accepted re-encodes to a line that decodes to the same request.
        precondition(
            RequestDecoder.decode(line: request.encodedLine().dropLast()) == .request(request),
            "a request did not round-trip")
    case .emptyLine:
        break
    case .error(let error):
        precondition(!error.message.isEmpty && error.message.unicodeScalars.count <= 400, "bad message")
    }
    if let header = MountLineHeader.find(in: line) {
        switch (MountRequest.decode(line: line), whole) {
        case (.success(let mount), .request(let request)):
            precondition(mount.view == header.view && mount.seq == header.seq, "the skim and the decode disagree")
            guard case .mount(let view, let children) = request.message else {
                preconditionFailure("the skimmer took a line that is not a mount")
            }
            precondition(
                view == mount.view && request.seq == mount.seq && children == JSONValue(mount.children),
                "the worker's half decoded another mount than the whole line")
        case (.failure(let error), .error(let wholeError)):
            precondition(error == wholeError, "the halves and the whole line fail differently")
        default:
            preconditionFailure("the halves and the whole line disagree on whether the line is valid")
        }
    }
    // A daemon's `error` line carries the daemon's own message through, so only "no crash" here.
    _ = DaemonMessageDecoder.decode(line: line)
    return 0
}
