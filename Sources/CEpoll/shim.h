#ifndef ACTIVITYPUSH_CEPOLL_SHIM_H
#define ACTIVITYPUSH_CEPOLL_SHIM_H
// Linux readiness and wake-up primitives for ActivityPushHTTP2's event loop (Glibc's Swift module omits them).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
