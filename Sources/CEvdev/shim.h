#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <sys/ioctl.h>

// EVIOCGRAB on an evdev node: 1 grabs it (only this open file gets its events), 0 releases it.
// (The macro is not importable into Swift.)
static inline int touchrouter_evdev_grab(int fd, int grab) { return ioctl(fd, EVIOCGRAB, (void *)(long)grab); }

// Whether the kernel holds BTN_TOUCH down on an evdev node now (EVIOCGKEY): 1 down, 0 up, -1 on
// error. A finger already down when libinput opened the device is one libinput never reports.
static inline int touchrouter_evdev_touch_down(int fd) {
    unsigned long keys[KEY_MAX / (8 * sizeof(unsigned long)) + 1] = {0};
    if (ioctl(fd, EVIOCGKEY(sizeof(keys)), keys) < 0) return -1;
    return (keys[BTN_TOUCH / (8 * sizeof(unsigned long))] >> (BTN_TOUCH % (8 * sizeof(unsigned long)))) & 1;
}
