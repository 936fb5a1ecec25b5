// Linux event APIs the Swift Glibc module does not export: epoll, signalfd, timerfd, eventfd, malloc_trim.
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <malloc.h>
