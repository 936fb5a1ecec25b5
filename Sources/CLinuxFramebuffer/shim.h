// The Linux framebuffer device's two queries (<linux/fb.h>), which the Swift Glibc module lacks,
// wrapped so Swift need not call the variadic ioctl(2); and mmap's constants.
#include <linux/fb.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

/// ioctl(fd, FBIOGET_VSCREENINFO, info): the visible and virtual resolution, bits per pixel and
/// the colour channels' bit fields.
static inline int touchrouter_fb_variable_info(int fd, struct fb_var_screeninfo *info) {
    return ioctl(fd, FBIOGET_VSCREENINFO, info);
}

/// ioctl(fd, FBIOGET_FSCREENINFO, info): the bytes per line and the size of the screen memory.
static inline int touchrouter_fb_fixed_info(int fd, struct fb_fix_screeninfo *info) {
    return ioctl(fd, FBIOGET_FSCREENINFO, info);
}
