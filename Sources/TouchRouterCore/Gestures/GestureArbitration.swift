/// UIKit's arbitration between one view's recognisers, in one place:
///
/// - Exclusive: once one recogniser of the view has begun or recognised in a sequence of touches,
///   its rivals (the view's other `exclusive` recognisers) that are following touches fail, and a
///   rival that asks later fails. A pinch and a rotate are partners, not rivals: they recognise
///   together. A recogniser with `exclusive: false` has no rivals (UIKit's
///   `shouldRecognizeSimultaneously` answered yes).
/// - Blockers (`require(toFail:)`): an exclusive tap waits for the view's exclusive taps with as
///   many fingers and more taps to fail before it recognises (pending, ignoring touches); it
///   recognises when the last of them fails, and fails if one of them recognises.
/// - `cancelsTouches` (`cancelsTouchesInView`): a recogniser that begins or recognises takes the
///   touches it follows; raw clients get one `cancelled` (reason `gesture`) for each, then nothing.
///   A touch that comes down while a `cancelsTouches` pan with room for it is active belongs to the
///   pan from the start: raw clients never see it.

/// Some of a view's recognisers, by position in its list (a view has at most 16:
/// `GestureDefaults.recognisersPerView`). A set of bits, so a view's links cost no allocation when
/// its first touch comes down (as arrays they cost about 21 k instructions a view with every kind,
/// about 70 % of making its recognisers: 10 views touched in one frame was the gesture rows' p99
/// frame in `touchrouter-bench latency`, callgrind).
struct RecogniserSet: Sequence, Sendable {
    private var bits: UInt16 = 0

    func contains(_ index: Int) -> Bool { bits & (1 << index) != 0 }

    mutating func insert(_ index: Int) { bits |= 1 << index }

    /// The positions in ascending order.
    func makeIterator() -> Iterator { Iterator(rest: bits) }

    struct Iterator: IteratorProtocol {
        var rest: UInt16

        mutating func next() -> Int? {
            guard rest != 0 else { return nil }
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            return index
        }
    }
}

/// Who a recogniser waits for and whom it excludes, by position in the view's list.
struct RecogniserLinks: Sendable {
    /// The recognisers that must fail before this one may recognise.
    var blockers = RecogniserSet()
    /// The recognisers whose blockers hold this one: what its failure may release.
    var waiters = RecogniserSet()
    /// The recognisers this one excludes and is excluded by.
    var rivals = RecogniserSet()

    /// Every recogniser's links for a view's list, made with the view's state at its first touch.
    /// Cost: recognisers² (at most 16²), reading specs that hold no reference (copying one retains
    /// nothing).
    static func links(for specs: [GestureSpec]) -> [RecogniserLinks] {
        var links = [RecogniserLinks](repeating: RecogniserLinks(), count: specs.count)
        for (index, spec) in specs.enumerated() where spec.kind == .tap && spec.exclusive {
            for (other, candidate) in specs.enumerated()
            where candidate.kind == .tap && candidate.exclusive && candidate.fingers == spec.fingers
                && candidate.taps > spec.taps
            {
                links[index].blockers.insert(other)
            }
        }
        for (index, spec) in specs.enumerated() {
            for (other, candidate) in specs.enumerated() where other != index {
                if links[other].blockers.contains(index) { links[index].waiters.insert(other) }
                if spec.exclusive && candidate.exclusive && !arePartners(spec.kind, candidate.kind) {
                    links[index].rivals.insert(other)
                }
            }
        }
        return links
    }

    private static func arePartners(_ a: GestureKind, _ b: GestureKind) -> Bool {
        (a == .pinch && b == .rotate) || (a == .rotate && b == .pinch)
    }
}

extension ViewGestures {
    /// What a recogniser asked for, granted or refused.
    mutating func apply(_ request: RecogniserRequest, to index: Int, now: UInt64, into output: inout GestureOutput) {
        switch request {
        case .none: return
        case .fail: fail(index, now: now, into: &output)
        case .change: move(index, to: .changed, now: now, into: &output)
        case .end: move(index, to: .ended, now: now, into: &output)
        case .cancel: move(index, to: .cancelled, now: now, into: &output)
        case .begin, .recognize:
            let links = recognisers[index].links
            for rival in links.rivals where recognisers[rival].state != .possible && recognisers[rival].state != .failed
            {
                return fail(index, now: now, into: &output)  // a rival recognised in this sequence
            }
            var waits = false
            for blocker in links.blockers {
                switch recognisers[blocker].state {
                case .failed: continue
                case .possible: waits = true
                default: return fail(index, now: now, into: &output)
                }
            }
            if waits {
                recognisers[index].pending = true
                return
            }
            grant(index, request == .begin ? .began : .recognized, now: now, into: &output)
        }
    }

    /// A recogniser begins or recognises: it takes its touches if it cancels them, and its rivals
    /// that are following touches fail.
    private mutating func grant(_ index: Int, _ state: GestureState, now: UInt64, into output: inout GestureOutput) {
        recognisers[index].pending = false
        move(index, to: state, now: now, into: &output)
        if recognisers[index].spec.cancelsTouches {
            let followed = recognisers[index].rule.followed
            for position in touches.indices where followed.contains(touches[position].id) { claim(position) }
        }
        for rival in recognisers[index].links.rivals
        where recognisers[rival].state == .possible && recognisers[rival].hasStarted {
            fail(rival, now: now, into: &output)
        }
    }

    /// A possible recogniser fails; a tap that waited only for it (and others that failed) recognises.
    mutating func fail(_ index: Int, now: UInt64, into output: inout GestureOutput) {
        guard recognisers[index].state == .possible else { return }
        recognisers[index].pending = false
        move(index, to: .failed, now: now, into: &output)
        for waiter in recognisers[index].links.waiters
        where recognisers[waiter].pending
            && recognisers[waiter].links.blockers.allSatisfy({ recognisers[$0].state == .failed })
        {
            recognisers[waiter].pending = false
            apply(.recognize, to: waiter, now: now, into: &output)
        }
    }

    /// A recogniser's new state, and its event (a failure's only when failures are recorded).
    private mutating func move(_ index: Int, to state: GestureState, now: UInt64, into output: inout GestureOutput) {
        recognisers[index].state = state
        guard state != .failed || recordsTransitions else { return }
        output.records.append(
            recognisers[index].event(state, now: now, viewID: viewID, screen: screen, touches: touches))
    }

    /// Ends every recogniser now (a reload changed or removed the view's gestures): active ones
    /// are cancelled, the others fail; the touches stay as they are (taken ones stay taken).
    mutating func cancelRecognisers(timestampMicros: UInt64, into output: inout GestureOutput) {
        for index in recognisers.indices where !recognisers[index].state.isTerminal {
            apply(recognisers[index].isActive ? .cancel : .fail, to: index, now: timestampMicros, into: &output)
        }
    }

    /// A touch that comes down while a `cancelsTouches` pan with room for it is active is the
    /// pan's from the start. Cost: one look per recogniser, and for a pan the view's touches × the
    /// fingers it follows.
    mutating func claimIfJoiningActivePan(_ position: Int) {
        for index in recognisers.indices
        where recognisers[index].spec.kind == .pan && recognisers[index].spec.cancelsTouches
            && recognisers[index].isActive && (recognisers[index].rule as? PanRule)?.hasRoom(among: touches) == true
        {
            claim(position)
            touches[position].cancellationSent = true
            return
        }
    }

    /// A gesture takes the touch at `position`.
    private mutating func claim(_ position: Int) {
        touches[position].claimed = true
    }
}
