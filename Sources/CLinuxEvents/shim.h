// Linux event APIs the Swift Glibc module does not export: epoll, signalfd, timerfd, eventfd, malloc_trim,
// pidfd_open (panel power waits for its programs through a pidfd).
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <malloc.h>
#include <sys/pidfd.h>
