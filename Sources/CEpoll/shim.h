#ifndef ACTIVITYPUSH_CEPOLL_SHIM_H
#define ACTIVITYPUSH_CEPOLL_SHIM_H
// Linux readiness and wake-up (glibc headers the Swift Glibc module does not export).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
