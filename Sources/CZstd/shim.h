#ifndef REEL_CZSTD_SHIM_H
#define REEL_CZSTD_SHIM_H
#define ZSTD_STATIC_LINKING_ONLY_NOT_NEEDED 1
#include <zstd.h>
#include <zstd_errors.h>
#endif
