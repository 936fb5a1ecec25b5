/// libFuzzer entry point for the protocol's line decoders (`scripts/fuzz protocol SECONDS`): a
/// request line (daemon side) and a daemon line (client side) from any bytes must decode or give a
/// typed error, never crash, hang or leak, and no message may quote more than an excerpt.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtocol(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let line = UnsafeBufferPointer(start: bytes, count: count)
    switch RequestDecoder.decode(line: line) {
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
    // A daemon's `error` line carries the daemon's own message through, so only "no crash" here.
    _ = DaemonMessageDecoder.decode(line: line)
    return 0
}
