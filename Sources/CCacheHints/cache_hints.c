// The only function is static inline in include/cache_hints.h; a C target needs a source file.
#include "cache_hints.h"
