// Linux event APIs the Swift Glibc module does not export: epoll, signalfd, timerfd, eventfd.
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
