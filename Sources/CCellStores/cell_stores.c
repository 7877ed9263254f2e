// The functions are static inline in the headers of include/; a C target needs a source file.
#include "cell_stores.h"
#include "row_cells.h"
