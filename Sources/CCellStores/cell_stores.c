// The functions are static inline in include/cell_stores.h; a C target needs a source file.
#include "cell_stores.h"
