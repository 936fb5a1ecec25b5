// Linux event APIs the Swift Glibc module does not export: epoll, signalfd, timerfd.
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
