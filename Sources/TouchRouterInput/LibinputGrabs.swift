import CEvdev
import Glibc
import TouchRouterSystem

/// The grab (passthrough, docs/passthrough.md): the physical devices of a screen with passthrough
/// are grabbed (EVIOCGRAB) on the descriptors libinput opened through `openRestricted`, so that
/// only this process reads them and the compositor sees the screen's virtual device alone.
///
/// A device is grabbed only while none of its contacts is down (the compositor saw those go down
/// and must see them lift): neither those libinput reported nor a finger down since before
/// libinput opened it (the kernel's BTN_TOUCH), so it is taken at the first batch with the
/// device's fingers all lifted;
/// a device that comes back (hotplug, a controller reset, which libinput reports as a removal and
/// an addition) is grabbed again the same way. A grab is released at once when its screen no
/// longer asks for one, and by the kernel when the descriptor closes (the device goes, the reader
/// is closed, the process exits or is killed).
extension LibinputReader {
    /// One grabbed device, for `status`.
    public struct Grab: Hashable, Sendable {
        public var screen: String
        public var name: String
        public var node: String
    }

    /// Asks for the devices of `screens` (and only those) to be grabbed: releases at once what no
    /// longer is, grabs what can be now (`updateGrabs`).
    public func setGrabbedScreens(_ screens: Set<String>) {
        guard screens != grabScreens else { return }
        grabScreens = screens
        for (pointer, state) in devices {
            devices[pointer]?.grabFailed = state.grabFailed && screens.contains(state.assignment.screen)
        }
        updateGrabs()
    }

    /// Grabs every device of a screen in `grabScreens` that has no contact down now, and releases
    /// the devices of other screens. Call it after the frames of a `dispatch()` were routed, while
    /// `grabsPending`: whatever was read before is what the compositor saw too. Cost: one pass over
    /// the touch devices (a few), one ioctl per grab taken or released.
    public func updateGrabs() {
        grabsPending = false
        for (pointer, state) in devices {
            let wanted = grabScreens.contains(state.assignment.screen)
            guard wanted != state.grabbed, !(wanted && state.grabFailed) else { continue }
            if wanted && state.accumulator.contactsDown > 0 {
                grabsPending = true
                continue
            }
            guard let node = state.description.node, let fd = callbacks.takeUnretainedValue().openNodes[node] else {
                devices[pointer]?.grabFailed = wanted
                log(.error, "touch device \(describe(state)): no open node to grab")
                continue
            }
            // A finger down since before libinput opened the device (the daemon started, or the
            // device came, under it) is not in `contactsDown`: libinput reports no touch it did not
            // see begin. The compositor saw it land; the kernel's BTN_TOUCH says when it lifts.
            if wanted && touchrouter_evdev_touch_down(fd) == 1 {
                grabsPending = true
                continue
            }
            if touchrouter_evdev_grab(fd, wanted ? 1 : 0) == 0 {
                devices[pointer]?.grabbed = wanted
                log(.info, "touch device \(describe(state)) \(wanted ? "grabbed" : "released") (passthrough)")
            } else if wanted {
                let savedErrno = errno
                devices[pointer]?.grabFailed = true
                log(
                    .error,
                    "touch device \(describe(state)): cannot grab it (EVIOCGRAB: \(String(cString: strerror(savedErrno)))"
                        + (savedErrno == EBUSY ? "; another program holds a grab" : "")
                        + "); passthrough stays off on screen \(state.assignment.screen)")
            } else {
                devices[pointer]?.grabbed = false
            }
        }
    }

    /// Whether every device of `screen` is grabbed now (true when it has none: nothing reaches
    /// the compositor from it).
    public func screenIsGrabbed(_ screen: String) -> Bool {
        devices.values.allSatisfy { $0.assignment.screen != screen || $0.grabbed }
    }

    /// The devices grabbed now.
    public var grabs: [Grab] {
        devices.values.filter(\.grabbed).map {
            Grab(
                screen: $0.assignment.screen, name: $0.device.name, node: $0.description.node ?? $0.description.sysname)
        }.sorted { ($0.screen, $0.node) < ($1.screen, $1.node) }
    }
}
