#ifndef REEL_CACHE_HINTS_H
#define REEL_CACHE_HINTS_H

/// Asks the processor to bring the `bytes` bytes at `start` into the cache for writing, one
/// request per 64-byte line, without waiting for them. A hint only: it never faults, whatever
/// the address, and changes no memory, so a wrong or stale address costs time, not
/// correctness. Swift has no prefetch of its own; this is inlined into the caller.
static inline void reel_prefetch_for_write(const void *start, long bytes) {
  const char *p = (const char *)start;
  for (long offset = 0; offset < bytes; offset += 64) {
    __builtin_prefetch(p + offset, 1, 3);
  }
}

#endif
