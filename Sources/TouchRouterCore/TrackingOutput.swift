import TouchRouterModel

/// The tracker's reusable output storage: per-view messages built in place, so a steady stream of
/// frames allocates nothing once the buffers have grown.

/// Builds one call's `[ViewTouches]` into storage kept from the previous call. The array handed
/// out shares that storage; when the caller has let go of it before the next call (the normal
/// case), the next call reuses it without allocating. Holding on to it is safe (copy-on-write),
/// it only costs a copy.
struct DeliveryBuffer {
    private var groups: [ViewTouches] = []
    private var count = 0
    /// Emptied touch arrays of groups no longer in use, kept with their capacity.
    private var spareTouchArrays: [[RoutedTouch]] = []

    /// Starts a new call's output.
    mutating func reset() {
        count = 0
    }

    /// Opens the message of one view; the following `append`s go into it.
    mutating func startGroup(viewID: String, screen: String, timestampMicros: UInt64) {
        if count < groups.count {
            groups[count].viewID = viewID
            groups[count].screen = screen
            groups[count].timestampMicros = timestampMicros
            groups[count].touches.removeAll(keepingCapacity: true)
        } else {
            var touches = spareTouchArrays.popLast() ?? []
            touches.removeAll(keepingCapacity: true)
            groups.append(
                ViewTouches(
                    viewID: viewID, screen: screen, timestampMicros: timestampMicros, touches: touches))
        }
        count += 1
    }

    /// Adds a touch to the view message opened last.
    mutating func append(_ touch: RoutedTouch) {
        groups[count - 1].touches.append(touch)
    }

    /// The messages built since `reset`, in order.
    mutating func finish() -> [ViewTouches] {
        while groups.count > count {
            var group = groups.removeLast()
            group.touches.removeAll(keepingCapacity: true)
            spareTouchArrays.append(group.touches)
        }
        return groups
    }
}
