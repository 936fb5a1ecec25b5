#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <sys/ioctl.h>

// EVIOCGRAB on an evdev node: 1 grabs it (only this open file gets its events), 0 releases it.
// (The macro is not importable into Swift.)
static inline int touchrouter_evdev_grab(int fd, int grab) { return ioctl(fd, EVIOCGRAB, (void *)(long)grab); }
