/* zn_sanitizer.h: ZN_ASAN / ZN_TSAN defined when the file is built with
 * AddressSanitizer / ThreadSanitizer (GCC's __SANITIZE_*__, clang's
 * __has_feature), for the code that must tell them about stack switches
 * and signal jumps (src/exec/zn_fiber.c, zn_exec_fault.c). */
#ifndef ZN_SANITIZER_H
#define ZN_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define ZN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZN_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define ZN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ZN_TSAN 1
#endif
#endif

#endif
