/*
 * sanitizer/tsan_interface.h - ThreadSanitizer's manual synchronisation
 * calls, for `heisen cc`: __tsan_release(addr) makes what the calling
 * thread did so far happen before what a thread does after a later
 * __tsan_acquire(addr). docs/annotations.md.
 */
#ifndef HEISEN_GUEST_SANITIZER_TSAN_INTERFACE_H
#define HEISEN_GUEST_SANITIZER_TSAN_INTERFACE_H

#ifdef __cplusplus
extern "C" {
#endif

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

#ifdef __cplusplus
}
#endif

#endif
